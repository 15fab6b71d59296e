import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Clock, TimerHandle } from "../clock.js";
import { processWide } from "../process-wide.js";
import type { JsonValue } from "../spans/json-value.js";
import { getSpanData, isIntegrationSpan, type SpanData } from "../spans/span-data.js";
import { markDroppedByApp } from "./trace-phase.js";
import type { TraceSink } from "./trace-sink.js";
import type { TraceView } from "./trace-view.js";
import { notify } from "./trace-waiters.js";

/**
 * One model request as two recorders may each have seen it: a span of one of our integrations
 * (or of zero-code's own AI SDK telemetry) and an llm span of the app's framework telemetry
 * through `EvaltraceSpanProcessor`. When the framework runs the model outside its span's context
 * (Strands, TanStack AI) or builds its spans after the run (OpenInference's BeeAI), nothing ties
 * the two: ours is a trace of its own beside the framework's. This room keeps such a request
 * once, as the framework's span (it sits in the agent's tree), filled in from ours with what it
 * lacks (input, output, model, provider, token counts, tool calls).
 *
 * A trace of ours made only of integration spans with at least one llm span, finished while the
 * app has its own bridge (and no capture of evaltrace/testing records), is held for
 * {@link HOLD_MILLIS} instead of being queued at once: each of its llm spans is matched to the
 * nearest app llm span in time that ends meanwhile (or ended just before, its trace not sent yet)
 * and is the same request ({@link sameRequest}; when two held traces match one span as well, none
 * does). When all are matched, and nothing else came into the trace since, it is let go (counted
 * in `stats().modelCallsFolded`); else it goes out as it is, at the end of the hold or at once on
 * a flush, a drain or a shutdown.
 */

/** How long a trace of ours waits for the framework's span of the same request. */
export const HOLD_MILLIS = 2_000;
/** Clock skew allowed between the two recorders' start and end times. */
const SKEW_MILLIS = 250;
/** At most this many traces held at once (the oldest goes out first), and app llm spans remembered. */
const MAX_HELD = 1_000;
const MAX_RECENT = 256;

/** What is compared of a model request's span. */
export interface ModelCall {
  start: number;
  end: number;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

/** What a recorder read of a span: its input, output and llm fields (the framework's filled in on a fold). */
type Read = Pick<SpanData, "input" | "output" | "fields">;

const millis = (t: HrTime): number => t[0] * 1e3 + t[1] / 1e6;
const count = (v: JsonValue | undefined): number | undefined => (typeof v === "number" ? v : undefined);

/** A model name as compared: lower case, without a `provider/` prefix or a date suffix (`gpt-4o-2024-08-06` is `gpt-4o`). */
function modelName(v: JsonValue | undefined): string | undefined {
  if (typeof v !== "string" || !v) return undefined;
  return v
    .toLowerCase()
    .replace(/^.*\//, "")
    .replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, "");
}

/** A model call as its span's times and llm fields describe it. */
export function modelCallOf(span: ReadableSpan, fields: Read["fields"]): ModelCall {
  return {
    start: millis(span.startTime),
    end: millis(span.endTime),
    model: modelName(fields.model),
    inputTokens: count(fields.inputTokenCount),
    outputTokens: count(fields.outputTokenCount),
  };
}

/**
 * Whether two spans are one request: at the same time (overlapping, within the two clocks'
 * skew), the same model where both name one, the same token counts where both have them; where
 * either has no token counts, both must name the model and ours lie within the framework's span.
 */
export function sameRequest(ours: ModelCall, theirs: ModelCall): boolean {
  if (ours.start > theirs.end + SKEW_MILLIS || theirs.start > ours.end + SKEW_MILLIS) return false;
  if (ours.model && theirs.model && ours.model !== theirs.model) return false;
  const tokensKnown = ours.inputTokens !== undefined && theirs.inputTokens !== undefined && ours.outputTokens !== undefined && theirs.outputTokens !== undefined;
  if (tokensKnown) return ours.inputTokens === theirs.inputTokens && ours.outputTokens === theirs.outputTokens;
  const inside = theirs.start <= ours.start + SKEW_MILLIS && ours.end <= theirs.end + SKEW_MILLIS;
  return inside && ours.model !== undefined && theirs.model !== undefined;
}

/** Our llm fields copied onto the framework's span where it has none. */
const FILLED = ["model", "provider", "inputTokenCount", "outputTokenCount", "toolsCalled"] as const;

/** Fills the framework's read of a request with ours where it has nothing: its input, output and llm fields. */
function fill(theirs: Read, ours: Read): void {
  if (theirs.input === undefined && ours.input !== undefined) theirs.input = ours.input;
  if (theirs.output === undefined && ours.output !== undefined) theirs.output = ours.output;
  for (const key of FILLED) if (theirs.fields[key] === undefined && ours.fields[key] !== undefined) theirs.fields[key] = ours.fields[key]!;
}

interface Held {
  rec: TraceView;
  /** Its llm calls not matched yet. */
  calls: { call: ModelCall; read: Read }[];
  /** How many llm calls it had when it was held (a fold checks that no other span came since). */
  total: number;
  until: number;
}

/** An llm span of the app's telemetry that ended and matched nothing held: a trace of ours may end just after. */
interface Recent {
  call: ModelCall;
  read: Read;
  traceId: string;
  at: number;
}

/** What the fold needs from the composition root. */
export interface ModelCallFoldParts {
  clock: Clock;
  /** Whether the app has a bridge of its own (an `EvaltraceSpanProcessor` it made): nothing is held otherwise. */
  appBridged: () => boolean;
  /** Whether a capture of evaltrace/testing records now: nothing is held then (a test reads what it captured at once). */
  capturing: () => boolean;
  /** Whether a trace has not gone out yet (a framework's span filled in after its trace went would change nothing). */
  unsent: (traceId: string) => boolean;
  /** Lets go of a trace kept by the framework's span instead (the assembler's drop, not counted as the app's). */
  drop: (traceId: string) => void;
}

/** The assembler's sink, in front of the next one: holds and folds traces of ours recorded twice (see the top of this file). */
export class ModelCallFold implements TraceSink {
  /** Model requests kept once, as the framework's span, where ours recorded them too. */
  folded = 0;
  private held: Held[] = [];
  private recent: Recent[] = [];
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly next: TraceSink,
    private readonly parts: ModelCallFoldParts,
  ) {}

  opened(rec: TraceView): void {
    this.next.opened?.(rec);
  }

  enqueue(rec: TraceView): void {
    const calls = this.stopped || !this.parts.appBridged() || this.parts.capturing() ? undefined : integrationModelCalls(rec);
    if (!calls) {
      this.next.enqueue(rec);
      return;
    }
    const now = this.parts.clock.now();
    const held: Held = { rec, calls, total: calls.length, until: now + HOLD_MILLIS };
    this.held.push(held);
    // The framework's spans may have ended first (only those whose trace has not gone out can take ours in).
    this.recent = this.recent.filter((r) => now - r.at <= HOLD_MILLIS);
    for (const r of [...this.recent]) {
      if (this.parts.unsent(r.traceId) && this.match(held, r.call, r.read)) this.recent.splice(this.recent.indexOf(r), 1);
    }
    if (held.calls.length === 0) {
      // Dropped outside the assembler's own hand-off, which called us.
      queueMicrotask(() => this.fold(held));
      return;
    }
    if (this.held.length > MAX_HELD) this.send(this.held[0]!);
    this.arm();
  }

  /** An llm span of the app's framework telemetry ended (`read`: what its convention read, filled in on a fold). */
  theirs(span: ReadableSpan, read: Read): void {
    const call = modelCallOf(span, read.fields);
    // The held call nearest in time; none when two held traces are as near (which one is it?).
    let best: Held | undefined;
    let bestGap = Number.POSITIVE_INFINITY;
    let tie = false;
    for (const held of this.held) {
      for (const c of held.calls) {
        if (!sameRequest(c.call, call)) continue;
        const gap = Math.abs(c.call.start - call.start);
        if (gap < bestGap) [best, bestGap, tie] = [held, gap, false];
        else if (gap === bestGap && held !== best) tie = true;
      }
    }
    if (best && !tie && this.match(best, call, read)) {
      if (best.calls.length === 0) this.fold(best);
      return;
    }
    this.recent.push({ call, read, traceId: span.spanContext().traceId, at: this.parts.clock.now() });
    if (this.recent.length > MAX_RECENT) this.recent.shift();
  }

  /** Matches the held call nearest in time to the framework's span, filling the framework's read from ours. */
  private match(held: Held, call: ModelCall, read: Read): boolean {
    let i = -1;
    for (let j = 0; j < held.calls.length; j++) {
      const c = held.calls[j]!.call;
      if (sameRequest(c, call) && (i < 0 || Math.abs(c.start - call.start) < Math.abs(held.calls[i]!.call.start - call.start))) i = j;
    }
    if (i < 0) return false;
    fill(read, held.calls[i]!.read);
    held.calls.splice(i, 1);
    return true;
  }

  /** Lets go of a trace all of whose calls the framework recorded, unless something else of it came or still runs (then it goes out). */
  private fold(held: Held): void {
    if (!this.held.includes(held)) return;
    const now = held.rec.open > 0 ? undefined : integrationModelCalls(held.rec);
    if (now?.length !== held.total) {
      this.send(held);
      return;
    }
    this.folded += held.total;
    // Still held: the assembler's drop comes back here through discard().
    this.parts.drop(held.rec.traceId);
    this.remove(held);
  }

  private send(held: Held): void {
    this.remove(held);
    this.next.enqueue(held.rec);
  }

  private remove(held: Held): void {
    const i = this.held.indexOf(held);
    if (i >= 0) this.held.splice(i, 1);
  }

  /** One timer for the earliest deadline (unref'd: a flush or the exit sends what is held). */
  private arm(): void {
    if (this.timer !== undefined || this.held.length === 0) return;
    const wait = Math.max(0, this.held[0]!.until - this.parts.clock.now());
    this.timer = this.parts.clock.setTimeout(() => {
      this.timer = undefined;
      const now = this.parts.clock.now();
      for (const held of this.held.filter((h) => h.until <= now)) this.send(held);
      this.arm();
    }, wait);
  }

  /** Sends every trace held now, as it is (a flush, a drain: nothing waits for the hold); one the framework recorded whole is let go. */
  sendHeld(): void {
    for (const held of [...this.held]) {
      if (held.calls.length === 0) this.fold(held);
      else this.send(held);
    }
  }

  /** Sends what is held and holds nothing from now on (a shutdown: the exporter drains what it has, then stops). */
  stop(): void {
    this.stopped = true;
    this.sendHeld();
  }

  scheduleUpdate(rec: TraceView): void {
    this.next.scheduleUpdate(rec);
  }

  discard(rec: TraceView): void {
    const held = this.held.find((h) => h.rec === rec);
    if (!held) {
      this.next.discard(rec);
      return;
    }
    // Never reached the next sink: given up here.
    this.remove(held);
    markDroppedByApp(rec);
    notify(rec);
  }

  flush(): Promise<unknown> {
    this.sendHeld();
    return this.next.flush();
  }

  shutdown(): Promise<unknown> {
    this.stop();
    return this.next.shutdown();
  }
}

/** Whether the app made an `EvaltraceSpanProcessor` (zero-code's own, for the AI SDK, does not count), for the process. */
const bridges = processWide("traces.appBridges", () => ({ made: false }));

/** The app made an `EvaltraceSpanProcessor`: its framework telemetry may record our model requests too. */
export function appBridgeMade(): void {
  bridges.made = true;
}

/** Whether the app has a bridge of its own. */
export function appBridged(): boolean {
  return bridges.made;
}

/** Model calls noted on zero-code's own foreign llm spans when they ended (their fields as read then). */
const noted = processWide("traces.notedModelCalls", () => new WeakMap<object, Read>());

/** Notes the llm fields of a span zero-code's own telemetry recorded (its AI SDK calls), for a fold. */
export function noteIntegrationModelCall(span: object, read: Read): void {
  noted.set(span, read);
}

/**
 * The llm calls of a trace made only by integrations (ours, or zero-code's own telemetry), with
 * their fields; undefined when any span is the app's own (`observe()`, its telemetry) or no span
 * is an llm call.
 */
function integrationModelCalls(rec: TraceView): Held["calls"] | undefined {
  if (rec.spans.length > 16) return undefined;
  const calls: Held["calls"] = [];
  for (const span of rec.spans) {
    if (!isIntegrationSpan(span)) return undefined;
    const data = getSpanData(span);
    const read = data && !data.foreign ? (data.type === "llm" ? data : undefined) : noted.get(span);
    if (read) calls.push({ call: modelCallOf(span, read.fields), read });
  }
  return calls.length > 0 ? calls : undefined;
}
