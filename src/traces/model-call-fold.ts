import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Clock, TimerHandle } from "../clock.js";
import { processWide } from "../process-wide.js";
import type { JsonValue } from "../spans/json-value.js";
import { getSpanData, isIntegrationSpan } from "../spans/span-data.js";
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
 * once, as the framework's span (it sits in the agent's tree), filled in from ours where the
 * framework left the model or the token counts out.
 *
 * A trace of ours made only of integration spans with at least one llm span, finished while the
 * app has its own bridge, is held for {@link HOLD_MILLIS} instead of being queued at once: each of
 * its llm spans is matched against the app's llm spans that end meanwhile (or ended just before);
 * when all are matched the trace is let go (counted in `stats().modelCallsFolded`), else it goes
 * out as it is. A flush or shutdown sends whatever is held: nothing is lost, at worst a request
 * is recorded twice, as before.
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

/** The llm fields of a span read by a convention (the fields object itself, filled in on a fold). */
type Fields = { [key: string]: JsonValue };

const millis = (t: HrTime): number => t[0] * 1e3 + t[1] / 1e6;
const count = (v: JsonValue | undefined): number | undefined => (typeof v === "number" ? v : undefined);

/** A model call as its span's times and llm fields describe it. */
export function modelCallOf(span: ReadableSpan, fields: Fields): ModelCall {
  const model = fields.model;
  return {
    start: millis(span.startTime),
    end: millis(span.endTime),
    model: typeof model === "string" && model ? model.toLowerCase() : undefined,
    inputTokens: count(fields.inputTokenCount),
    outputTokens: count(fields.outputTokenCount),
  };
}

/**
 * Whether two spans are one request: the same model where both name one (one may be the dated
 * form of the other), the same token counts where both have them; then either both token counts
 * equal (a recorder that builds its spans after the run may give them its own times), or ours
 * inside the framework's span in time.
 */
export function sameRequest(ours: ModelCall, theirs: ModelCall): boolean {
  if (ours.model && theirs.model && !ours.model.includes(theirs.model) && !theirs.model.includes(ours.model)) return false;
  const tokensKnown = ours.inputTokens !== undefined && theirs.inputTokens !== undefined && ours.outputTokens !== undefined && theirs.outputTokens !== undefined;
  if (tokensKnown) return ours.inputTokens === theirs.inputTokens && ours.outputTokens === theirs.outputTokens;
  const inside = theirs.start <= ours.start + SKEW_MILLIS && ours.end <= theirs.end + SKEW_MILLIS;
  return inside && ours.model !== undefined && theirs.model !== undefined;
}

/** Integration spans' llm fields copied where the framework's span has none. */
const FILLED = ["model", "provider", "inputTokenCount", "outputTokenCount"] as const;

interface Held {
  rec: TraceView;
  calls: { call: ModelCall; fields: Fields }[];
  until: number;
}

/** What the fold needs from the composition root. */
export interface ModelCallFoldParts {
  clock: Clock;
  /** Whether the app has a bridge of its own (an `EvaltraceSpanProcessor` it made): nothing is held otherwise. */
  appBridged: () => boolean;
  /** Lets go of a trace kept by the framework's span instead (the assembler's drop, not counted as the app's). */
  drop: (traceId: string) => void;
}

/** The assembler's sink, in front of the next one: holds and folds traces of ours recorded twice (see the top of this file). */
export class ModelCallFold implements TraceSink {
  /** Model requests kept once, as the framework's span, where ours recorded them too. */
  folded = 0;
  private held: Held[] = [];
  private recent: { call: ModelCall; fields: Fields; at: number }[] = [];
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
    const calls = this.stopped || !this.parts.appBridged() ? undefined : integrationModelCalls(rec);
    if (!calls) {
      this.next.enqueue(rec);
      return;
    }
    const now = this.parts.clock.now();
    const held: Held = { rec, calls, until: now + HOLD_MILLIS };
    this.held.push(held);
    // The framework's spans may have ended first.
    this.recent = this.recent.filter((r) => now - r.at <= HOLD_MILLIS);
    for (const r of [...this.recent]) if (this.match(held, r.call, r.fields)) this.recent.splice(this.recent.indexOf(r), 1);
    if (held.calls.length === 0) {
      // Dropped outside the assembler's own hand-off, which called us.
      queueMicrotask(() => this.fold(held));
      return;
    }
    if (this.held.length > MAX_HELD) this.send(this.held[0]!);
    this.arm();
  }

  /** An llm span of the app's framework telemetry ended (`fields`: its convention's llm fields, filled in on a fold). */
  theirs(span: ReadableSpan, fields: Fields): void {
    const call = modelCallOf(span, fields);
    for (const held of this.held) {
      if (!this.match(held, call, fields)) continue;
      if (held.calls.length === 0) this.fold(held);
      return;
    }
    this.recent.push({ call, fields, at: this.parts.clock.now() });
    if (this.recent.length > MAX_RECENT) this.recent.shift();
  }

  /** Matches one of `held`'s calls to the framework's span, filling the framework's fields from ours. */
  private match(held: Held, call: ModelCall, fields: Fields): boolean {
    const i = held.calls.findIndex((c) => sameRequest(c.call, call));
    if (i < 0) return false;
    const ours = held.calls[i]!.fields;
    for (const key of FILLED) if (fields[key] === undefined && ours[key] !== undefined) fields[key] = ours[key]!;
    held.calls.splice(i, 1);
    return true;
  }

  private fold(held: Held): void {
    if (!this.held.includes(held)) return;
    this.folded++;
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

  /** Sends every trace held now, as it is (a flush, a drain: nothing waits for the hold). */
  sendHeld(): void {
    for (const held of [...this.held]) this.send(held);
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
    this.sendHeld();
    this.stopped = true;
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
const noted = processWide("traces.notedModelCalls", () => new WeakMap<object, Fields>());

/** Notes the llm fields of a span zero-code's own telemetry recorded (its AI SDK calls), for a fold. */
export function noteIntegrationModelCall(span: object, fields: Fields): void {
  noted.set(span, fields);
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
    const fields = data && !data.foreign ? (data.type === "llm" ? data.fields : undefined) : noted.get(span);
    if (fields) calls.push({ call: modelCallOf(span, fields), fields });
  }
  return calls.length > 0 ? calls : undefined;
}
