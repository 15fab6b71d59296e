import { context, type Span, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { ManualSpan } from "../tracing/manual-span.js";
import { type SpanWatch, watchSpans } from "./span-watch.js";
import { holdUnread, releaseUnread, type SendsNow, type UnreadStream } from "../runtime/unread-streams.js";
import { parentSpanIdOf } from "../spans/span-data.js";
import { replaceMethod } from "./kit/prototype-method.js";
import { abortedWhy, NEVER_READ, NOT_READ_TO_END, reasonText, STOPPED_READING } from "./kit/stream-ending.js";

type Options = Record<string, unknown>;
type Callback = (event: unknown) => unknown;

/** What a span of the call is to us: the call (its root), a step of it, one model call; others (tools) are left alone. */
type Role = "call" | "step" | "model";

/**
 * The role of one of the AI SDK's spans: `ai.streamText` and `ai.streamText.doStream` (AI SDK 5
 * and 6, and `LegacyOpenTelemetry` of `@ai-sdk/otel`); `invoke_agent`, `agent_step` and `chat`
 * GenAI spans (`OpenTelemetry` of `@ai-sdk/otel` on AI SDK 7).
 */
function roleOf(span: ReadableSpan): Role | undefined {
  const name = typeof span.name === "string" ? span.name : "";
  if (/^ai\.\w+$/.test(name)) return "call";
  if (/^ai\.\w+\.do(Stream|Generate)$/.test(name)) return "model";
  const op = span.attributes?.["gen_ai.operation.name"];
  if (op === "invoke_agent") return "call";
  if (op === "agent_step") return "step";
  if (op === "chat" || op === "text_completion" || op === "generate_content") return "model";
  return undefined;
}

/** Text streamed so far, as the span's output, in its own convention's terms. */
function setOutput(span: Span & ReadableSpan, text: string): void {
  if (span.name.startsWith("ai.")) span.setAttribute("ai.response.text", text);
  else span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text }] }]));
}

/**
 * One `streamText` call, from its start until the app has read its stream to the end. The AI
 * SDK leaves the spans of a stream that does not end that way as they were: one aborted by its
 * AbortController ends a SUCCESS with no output (AI SDK 7), or stays open (AI SDK 6); one the app
 * stops reading (`break`), or never reads, stays open. This ends them: ERRORED, saying why (the
 * abort reason; cut short by the app; never read), with the text streamed so far as the output.
 * It sees the call's spans through the span processor ({@link SpanWatch}), the text and the
 * abort through the call's own callbacks and signal, and the reading through the result's streams.
 */
class StreamCall implements SpanWatch, UnreadStream {
  private readonly spans: (Span & ReadableSpan)[] = [];
  private readonly roles = new Map<Span, Role>();
  /** Where in the text each model call's own text starts. */
  private readonly starts = new Map<Span, number>();
  private text = "";
  private branches = 0;
  private cancelled = 0;
  /** Reads of the result's streams waiting for the SDK now. */
  private reading = 0;
  private settled = false;
  private readonly onSignal: (() => void) | undefined;
  private onSettled!: () => void;
  readonly whenSettled = new Promise<void>((resolve) => {
    this.onSettled = resolve;
  });

  constructor(
    private readonly signal: AbortSignal | undefined,
    /** Whether the app lets outputs be recorded (`recordOutputs`). */
    private readonly recordOutputs: boolean,
    /** A span of ours around the call (an agent's), ended with it. */
    private readonly outer?: ManualSpan,
  ) {
    if (signal && typeof signal.addEventListener === "function") {
      this.onSignal = () => this.aborted(signal.reason);
      signal.addEventListener("abort", this.onSignal, { once: true });
    }
  }

  /** The result's streams are watched from now on: until they are read to their end, `deliver()` may settle the call. */
  watchReads(result: object): void {
    readersOf.set(result, this);
    holdUnread(this);
  }

  /** Nothing more to watch (the call threw: `err`). */
  dispose(err?: unknown): void {
    this.release();
    if (err !== undefined) this.outer?.fail(err);
  }

  /** The SDK finished the call (`onFinish`): the span around it ends with the reply. */
  finished(event: unknown): void {
    const text = (event as { text?: unknown } | undefined)?.text;
    this.outer?.end(typeof text === "string" ? text : this.text);
  }

  started(span: Span): void {
    const role = roleOf(span as unknown as ReadableSpan);
    if (!role || this.settled) return;
    this.spans.push(span as Span & ReadableSpan);
    this.roles.set(span, role);
    if (role === "model") this.starts.set(span, this.text.length);
  }

  /** A chunk the SDK processed (`onChunk`): its text, when it is text. */
  chunk(part: unknown): void {
    if (this.settled || part === null || typeof part !== "object") return;
    const p = part as { type?: unknown; text?: unknown; delta?: unknown; textDelta?: unknown };
    if (p.type !== "text-delta") return;
    const piece = typeof p.text === "string" ? p.text : typeof p.delta === "string" ? p.delta : p.textDelta;
    if (typeof piece === "string") this.text += piece;
  }

  /** The call was aborted (its signal, or the SDK's `onAbort`). The SDK ends what it ends right after. */
  aborted(reason: unknown): void {
    this.cutShort(abortedWhy(reason), false);
  }

  /** A stream of the result failed (the SDK ends the spans of some failures, not of all). */
  failed(err: unknown): void {
    this.cutShort(`stream failed: ${reasonText(err)}`, false);
  }

  /** A stream of the result, as the app gets it: its reads, its end and its cancelling are seen. */
  branch(stream: ReadableStream<unknown>): ReadableStream<unknown> {
    this.branches++;
    const reader = stream.getReader();
    return new ReadableStream<unknown>(
      {
        pull: async (controller) => {
          this.reading++;
          try {
            const { done, value } = await reader.read();
            if (done) {
              this.release();
              controller.close();
            } else controller.enqueue(value);
          } catch (err) {
            this.failed(err);
            controller.error(err);
          } finally {
            this.reading--;
          }
        },
        cancel: async (reason) => {
          if (++this.cancelled === this.branches) this.cutShort(STOPPED_READING, true);
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  get traced(): boolean {
    return this.spans.length > 0;
  }

  settleUnread(sendsNow: SendsNow): void {
    if (this.settled || this.reading > 0) return;
    const root = this.spans.find((s) => this.roles.get(s) === "call" && s.isRecording());
    if (!root) {
      // Nothing of it recorded (telemetry off, no span processor), or nothing left open: nothing to settle, ever.
      this.release();
      return;
    }
    if (parentSpanIdOf(root) !== undefined && !sendsNow(root.spanContext().traceId)) return;
    this.cutShort(this.branches === 0 ? NEVER_READ : NOT_READ_TO_END, true);
  }

  /**
   * Marks the call's open spans ERRORED with `why`, with the text streamed so far; ends them now
   * (`endNow`: nothing else will) or after the SDK's own ends had their turn.
   */
  private cutShort(why: string, endNow: boolean): void {
    if (this.settled) return;
    this.release();
    for (const span of this.spans) {
      if (!span.isRecording()) continue;
      span.setStatus({ code: SpanStatusCode.ERROR, message: why });
      if (!this.recordOutputs) continue;
      const role = this.roles.get(span);
      const text = role === "model" ? this.text.slice(this.starts.get(span) ?? 0) : role === "call" && span.name.startsWith("ai.") ? this.text : "";
      if (text) setOutput(span, text);
    }
    if (endNow) this.endOpen(why);
    else setTimeout(() => this.endOpen(why), 0).unref?.();
  }

  private endOpen(why: string): void {
    // Children first, so that no span ends after its parent.
    for (const span of [...this.spans].reverse()) if (span.isRecording()) span.end();
    this.outer?.fail(new Error(why), this.recordOutputs && this.text ? this.text : undefined);
  }

  /** Settled: the stream was read to its end or cut short. */
  private release(): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettled();
    releaseUnread(this);
    if (this.onSignal) this.signal?.removeEventListener("abort", this.onSignal);
  }
}

/** `own` called after `ours`; either may be missing. */
function both(ours: Callback, own: unknown): Callback {
  const quiet = (event: unknown) => {
    try {
      ours(event);
    } catch {
      // Our bookkeeping never reaches the app.
    }
  };
  return typeof own === "function"
    ? function (this: unknown, event: unknown) {
        quiet(event);
        return (own as Callback).call(this, event);
      }
    : quiet;
}

/** The call's telemetry options: AI SDK 7's `telemetry`, else `experimental_telemetry`. */
function telemetryOf(options: Options): { isEnabled?: unknown; recordOutputs?: unknown } | undefined {
  const t = options.telemetry ?? options.experimental_telemetry;
  return t !== null && typeof t === "object" ? (t as { isEnabled?: unknown; recordOutputs?: unknown }) : undefined;
}

/**
 * Runs `streamText(options)` (`run`) watched: its spans, its text, its abort and how the app
 * reads the result decide how its spans end ({@link StreamCall}). A call with telemetry turned
 * off, or a result without the streams we know, runs as it is. `outer`, a span of ours around the
 * call (an agent's, whose `stream()` resolves to the result: `run` may return a promise of it),
 * ends with it; `finishKey` names the option of the SDK's end callback it rides on.
 */
export function streamTextWatched<R>(options: Options, run: (options: Options) => R, outer?: ManualSpan, finishKey?: string): R {
  const telemetry = telemetryOf(options);
  if (telemetry?.isEnabled === false) return run(options);
  const signal = typeof AbortSignal !== "undefined" && options.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
  const call = new StreamCall(signal, telemetry?.recordOutputs !== false, outer);
  const watched: Options = {
    ...options,
    onChunk: both((event) => call.chunk((event as { chunk?: unknown } | undefined)?.chunk), options.onChunk),
    onAbort: both((event) => call.aborted((event as { reason?: unknown } | undefined)?.reason ?? signal?.reason), options.onAbort),
  };
  if (finishKey) watched[finishKey] = both((event) => call.finished(event), options[finishKey]);
  let result: R;
  try {
    result = context.with(watchSpans(outer?.context ?? context.active(), call), () => run(watched));
  } catch (err) {
    call.dispose(err);
    throw err;
  }
  if (result instanceof Promise) {
    result.then(
      (resolved: unknown) => watchResult(call, resolved),
      (err: unknown) => call.dispose(err),
    );
  } else watchResult(call, result);
  return result;
}

/** The call each watched result belongs to (the result object is the SDK's, left as it is). */
const readersOf = new WeakMap<object, StreamCall>();
/** The result classes whose `teeStream` reads through `readersOf`. */
const teeHooked = new WeakSet<object>();

/**
 * Every stream of the result (textStream, fullStream, the response helpers) is a branch of its
 * base stream, made by the result class's `teeStream()`: watched there, on the class (once per
 * class), so that the result the app holds keeps its own properties as the SDK made them.
 */
function watchResult(call: StreamCall, result: unknown): void {
  const owner = result !== null && typeof result === "object" ? teeOwner(result) : undefined;
  try {
    if (!owner) {
      call.dispose();
      return;
    }
    if (!teeHooked.has(owner)) {
      teeHooked.add(owner);
      replaceMethod(owner, "teeStream", (original) => {
        // A method, as the SDK's is (no `prototype` of its own).
        const replaced = {
          teeStream(this: unknown) {
            const branch = original.call(this);
            const reader = this !== null && typeof this === "object" ? readersOf.get(this) : undefined;
            return reader ? reader.branch(branch as ReadableStream<unknown>) : branch;
          },
        };
        return replaced.teeStream;
      });
    }
    call.watchReads(result as object);
  } catch {
    // A result class we cannot hook: not watched.
    call.dispose();
  }
}

/** The object of `result`'s prototype chain whose own `teeStream` method is the SDK's. */
function teeOwner(result: object): object | undefined {
  for (let o: object | null = result; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, "teeStream");
    if (d) return typeof d.value === "function" && d.configurable && o !== result ? o : undefined;
  }
  return undefined;
}

/**
 * Runs another AI SDK call (`generateText`, `embed` ...) out of the watch of a stream around it
 * (one a tool of that stream makes, say): its spans are its own.
 */
export function unwatched<R>(run: () => R): R {
  return context.with(watchSpans(context.active(), undefined), run);
}
