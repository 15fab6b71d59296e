import { currentRuntime } from "../runtime/configure.js";
import type { CaptureTarget, WireObject } from "../runtime/trace-capture.js";
import { traceTaps } from "../runtime/trace-tap.js";
import { type CapturedSpan, type CapturedTrace, type JsonObject, TraceParts, timeKey } from "./captured.js";

/** Options of {@link captureTraces}. */
export interface CaptureOptions {
  /**
   * The most traces the capture holds; later ones are counted in `droppedTraces` (with a
   * warning through the SDK's logger, once), not kept.
   * @default 1000
   */
  maxTraces?: number;
}

/** What {@link captureTraces} returns: the traces captured so far, and the way to stop. */
export interface TraceCapture {
  /** The traces captured so far (those whose root span ended), oldest first, each as a span tree. A fresh copy on each call. */
  traces(): CapturedTrace[];
  /** Every span of every captured trace, in start order. */
  spans(): CapturedSpan[];
  /** Forgets what was captured so far; the capture goes on. */
  clear(): void;
  /** Stops capturing: traces started from now on are exported as usual. What was captured stays readable. Idempotent. */
  stop(): void;
  /** False once stopped. */
  readonly active: boolean;
  /** Traces not kept because `maxTraces` were held. */
  readonly droppedTraces: number;
}

/**
 * Starts capturing the traces the app produces, in memory: from `observe()`, the integrations and
 * other instrumentations' OpenTelemetry spans through `EvaltraceSpanProcessor`. Nothing of a
 * captured trace is sent to the service, even when an API key is configured, and while any
 * capture runs every new trace is recorded, with no API key, with `enabled: false` or a
 * `sampleRate` below 1 (offline evaluations are not sent meanwhile either).
 *
 * A trace belongs to the capture it starts under: the newest running capture made in the async
 * context where its first span starts (a capture made in a test takes what that test calls, so
 * concurrent tests each get their own). A trace that starts in no capture's context (a server's
 * request handler, a timer set before the capture) goes to every running capture.
 *
 * @throws TypeError when an option has a wrong value.
 * @example
 * const capture = captureTraces();
 * await myAgent("When do orders ship?");
 * expect(capture).toHaveSpan({ type: "tool", name: "lookup_order" });
 * capture.stop();
 */
export function captureTraces(options: CaptureOptions = {}): TraceCapture {
  const maxTraces = options.maxTraces ?? 1000;
  if (!Number.isInteger(maxTraces) || maxTraces < 1) throw new TypeError(`captureTraces: maxTraces must be a positive integer, got ${String(options.maxTraces)}`);
  const capture = new Capture(maxTraces);
  const taps = traceTaps();
  taps.active.add(capture);
  // Bound to this async context and what it starts from now on (the rest of the test).
  const outer = taps.scope.getStore() ?? [];
  taps.scope.enterWith([...outer.filter((c) => c.active), capture]);
  return capture;
}

class Capture implements TraceCapture, CaptureTarget {
  private readonly held = new Map<string, TraceParts>();
  private running = true;
  private droppedCount = 0;

  constructor(private readonly maxTraces: number) {}

  get active(): boolean {
    return this.running;
  }

  get droppedTraces(): number {
    return this.droppedCount;
  }

  received(trace: WireObject): void {
    const uuid = String(trace.uuid);
    if (this.held.size >= this.maxTraces && !this.held.has(uuid)) {
      if (this.droppedCount++ === 0) currentRuntime()?.logger.warn(`captureTraces: more than ${this.maxTraces} traces (maxTraces); later ones are counted in droppedTraces, not kept`);
      return;
    }
    this.held.set(uuid, new TraceParts(trace as JsonObject));
  }

  updated(uuid: string, update: WireObject): void {
    this.held.get(uuid)?.update(update as JsonObject);
  }

  dropped(uuid: string): void {
    this.held.delete(uuid);
  }

  traces(): CapturedTrace[] {
    return [...this.held.values()].map((t) => t.snapshot());
  }

  spans(): CapturedSpan[] {
    return allSpans(this.traces());
  }

  clear(): void {
    this.held.clear();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    traceTaps().active.delete(this);
  }
}

/** Every span of the traces, in start order (ties in capture order). */
export function allSpans(traces: readonly CapturedTrace[]): CapturedSpan[] {
  const spans = traces.flatMap((t) => t.spans.map((s) => ({ s, key: timeKey(s.startTime) })));
  // Array.prototype.sort is stable: spans that start together stay in capture order.
  return spans.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ s }) => s);
}
