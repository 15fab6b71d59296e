import type { Context, HrTime } from "@opentelemetry/api";
import type { Clock, TimerHandle } from "../clock.js";
import { trace as otelTrace } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { isReportableCount, type Logger } from "../logger.js";
import { foreignModelCallUnder, foreignSpanClaimed, getSpanData, parentSpanIdOf, SPAN_TYPE_ATTRIBUTE, sentStartOf, setParentOverride, setStartFloor } from "../spans/span-data.js";
import type { ParentSpan } from "../spans/observed-tracer.js";
import { anchorTraceState, joinRemoteParent } from "../spans/remote-parent.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { parentSpanContextOf, scopeNameOf } from "../spans/span-shape.js";
import { isLater, preciseNow } from "../spans/time.js";
import { ChurnMap } from "../util/churn-map.js";
import { MAX_REMEMBERED_TRACES, RecentTraces } from "../util/recent-traces.js";
import { markJoinedRemotely } from "./joined-remotely.js";
import { parentsFirst } from "./parents-first.js";
import { markDroppedByApp, markNothingToSend, markQueued, startAsLate } from "./trace-phase.js";
import { addOpenSpan, clearOpenSpans, endOpenSpan, newTraceRecord, recordOf, type TraceRecord } from "./trace-record.js";
import { TraceRouting } from "./trace-routing.js";
import type { TraceSink } from "./trace-sink.js";
import type { TraceView } from "./trace-view.js";
import { notify, waitFor } from "./trace-waiters.js";
import { applyLateTraceUpdate, applyTraceUpdate, type SafeTraceUpdate } from "./trace-update.js";
import { TRUNCATED_KEY, UNFINISHED_SPAN_KEY, UNFINISHED_SPANS_KEY, unfinishedView } from "./unfinished.js";

export type { SafeTraceUpdate } from "./trace-update.js";

/** What the assembler needs of the options. */
export interface AssemblerOptions {
  maxOpenTraces: number;
  maxSpansPerTrace: number;
  maxTraceDurationMillis: number;
  clock: Clock;
}

/** Why a trace was sent before all its spans ended. */
export type ForceEndReason = "maxTraceDurationMillis" | "deliver" | "shutdown" | "exit";

/**
 * The span processor of our provider. It buffers the finished spans of each trace and, when the
 * trace's root ends, hands the whole trace to its {@link TraceSink} (the exporter). Spans and
 * trace updates that arrive after that become late updates (`PUT`). Holds at most
 * `maxOpenTraces` running traces, each for at most `maxTraceDurationMillis`: a trace whose spans
 * never end is sent with them marked.
 */
export class TraceAssembler implements SpanProcessor {
  private readonly records = new ChurnMap<string, TraceRecord>();
  /** Spans beyond maxSpansPerTrace, dropped. */
  droppedSpans = 0;
  /** Traces not recorded because maxOpenTraces traces were open. */
  droppedTraces = 0;
  /** Traces force-ended, open spans sent unfinished, and real ends of those ignored later. */
  forcedTraces = 0;
  forcedSpans = 0;
  spansEndedAfterForce = 0;
  /** Traces the app dropped (`updateCurrentTrace({ drop: true })`), and their spans that ended after it. */
  tracesDiscarded = 0;
  spansDiscarded = 0;
  /** Dropped traces, remembered after their records were let go: their late spans are dropped too. */
  private readonly discardedIds = new RecentTraces<true>(MAX_REMEMBERED_TRACES);
  /** Per-trace API keys (`observe({ apiKey })`), remembered for late spans and evaluations. */
  private readonly routing = new TraceRouting();
  private warnedIgnoredFields = false;
  /** Every span ever force-ended: its real end is ignored (and counted), its children are late. */
  private forced: WeakSet<object> | undefined;
  /** Spans dropped past maxSpansPerTrace, and their descendants started later. */
  private dropped: WeakSet<object> | undefined;
  private sweepTimer: TimerHandle | undefined;
  /** Spans open across all traces: the sweep timer runs only while some are. */
  private spansOpen = 0;
  private lastRefusalSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sink: TraceSink,
    private readonly limits: AssemblerOptions,
    private readonly logger: Logger,
  ) {}

  /** Traces whose root is still running (ended ones are bounded by the export queue instead). */
  private running = 0;

  /**
   * Resolves once none of `records` has a span open, or after `timeoutMillis` (kept alive: the
   * caller awaits it). Spans started meanwhile in those traces are waited for too.
   */
  async whenSpansEnded(records: readonly TraceView[], timeoutMillis: number): Promise<void> {
    const open = records.filter((r) => r.open > 0);
    if (open.length === 0) return;
    const clock = this.limits.clock;
    let timer: TimerHandle | undefined;
    const deadline = new Promise<void>((resolve) => {
      if (timeoutMillis <= 0) resolve();
      else timer = clock.setTimeout(resolve, timeoutMillis, true);
    });
    await Promise.race([Promise.all(open.map((r) => waitFor(r, () => r.open <= 0))), deadline]);
    if (timer !== undefined) clock.clearTimeout(timer);
  }

  /** Whether a new trace may start; counts the refusal. Called by the sampler. */
  admitNewTrace(): boolean {
    if (this.running < this.limits.maxOpenTraces) return true;
    // Stuck traces must never keep new ones out: evict those past their time first.
    const now = this.limits.clock.now();
    if (now - this.lastRefusalSweep >= 100) {
      this.lastRefusalSweep = now;
      this.sweep();
      if (this.running < this.limits.maxOpenTraces) return true;
    }
    this.droppedTraces++;
    if (isReportableCount(this.droppedTraces)) {
      this.logger.warn(
        `${this.droppedTraces} trace(s) not recorded: ${this.limits.maxOpenTraces} traces are open at once (maxOpenTraces)`,
      );
    }
    return false;
  }

  /** A trace, read-only, while the SDK holds its record. */
  get(traceId: string): TraceView | undefined {
    return this.records.get(traceId);
  }

  /** Every trace held now, read-only. */
  all(): IterableIterator<TraceView> {
    return this.records.values();
  }

  /**
   * Routes a trace to another project's key (`configured`: the configured key): `"late"` when
   * the SDK holds no such trace, or it can no longer change (trace-routing.ts).
   */
  route(traceId: string, apiKey: string, configured: string | undefined): "routed" | "late" {
    return this.routing.route(this.records.get(traceId), apiKey, configured);
  }

  /** The key a trace goes to, when not the configured one (held, or remembered a while after). */
  keyOf(traceId: string): string | undefined {
    return this.routing.keyOf(this.records.get(traceId), traceId);
  }

  get openTraces(): number {
    return this.records.size;
  }

  /** A span started (under `parent`, by default the span of `parentContext`: see ParentSpan). */
  onStart(span: Span, parentContext: Context, parentSpan?: ParentSpan): void {
    const { traceId } = span.spanContext();
    // A root of ours opened with no parent (`null`: observe() and manual spans at the top) has a
    // trace id made for it just now: no record or discard has it, and neither is looked up.
    const newRoot = parentSpan === null;
    if (!newRoot && this.discardedIds.has(traceId)) return;
    // Our own spans name themselves in what is propagated; a span under a remote evaltrace
    // caller's span joins the caller's trace (remote-parent.ts).
    const ours = scopeNameOf(span) === "evaltrace";
    if (ours) {
      anchorTraceState(span);
      // A model call of ours inside another instrumentation's span (zero-code under a framework's
      // telemetry): that span is told, so that the request is one llm span.
      if (span.attributes[SPAN_TYPE_ATTRIBUTE] === "llm") {
        const parent = parentOf(span, parentContext, parentSpan);
        if (parent !== undefined && getSpanData(parent) === undefined) foreignModelCallUnder(parent);
      }
    }
    const remote = parentSpanContextOf(span)?.isRemote === true && joinRemoteParent(span);
    let rec = newRoot ? undefined : this.records.get(traceId);
    const parent = rec === undefined || this.dropped !== undefined || !ours ? parentOf(span, parentContext, parentSpan) : undefined;
    // A child of a dropped span has nowhere to hang: dropped with it.
    if (parent && this.dropped?.has(parent)) this.dropped.add(span);
    // Another instrumentation's clock may put its span before its parent (ours start with theirs).
    if (!ours) floorStart(span, parent);
    if (!rec) {
      rec = newTraceRecord(traceId, this.limits.clock.now());
      this.routing.adopt(rec);
      if (remote) {
        // The caller's process owns the trace (it sends it): ours are its late updates.
        startAsLate(rec);
        markJoinedRemotely(rec);
      } else if (parent && ((parent as unknown as ReadableSpan).ended || this.forced?.has(parent))) {
        // A span started from the context of a trace that has already been handed off (work
        // left running after its root returned, or after it was sent unfinished): it can only
        // be a late update.
        startAsLate(rec);
      } else {
        this.running++;
      }
      this.records.set(traceId, rec);
      this.sink.opened?.(rec);
    }
    if (this.spansOpen++ === 0) this.armSweep();
    addOpenSpan(rec, span);
  }

  onEnd(span: ReadableSpan): void {
    if (this.forced?.has(span)) {
      // Already sent as unfinished; the service cannot update a stored span.
      this.spansEndedAfterForce++;
      return;
    }
    const rec = this.records.get(span.spanContext().traceId);
    const data = getSpanData(span);
    if (!rec) {
      if (this.discardedIds.has(span.spanContext().traceId)) {
        this.spansDiscarded++;
        if (data) data.ended = true;
      }
      return;
    }
    if (endOpenSpan(rec, span)) this.spansOpen--;
    if (data) data.ended = true;
    else keptShapes.foreignSpan = span;
    const parentId = parentSpanIdOf(span);
    if (rec.phase === "failed") {
      // Nothing more to send about it.
    } else if (!this.keeps(rec, span, parentId)) {
      (this.dropped ??= new WeakSet()).add(span);
      rec.droppedSpans++;
      this.droppedSpans++;
      if (isReportableCount(this.droppedSpans)) {
        this.logger.warn(
          `${this.droppedSpans} span(s) dropped so far: trace ${rec.uuid} reached maxSpansPerTrace (${this.limits.maxSpansPerTrace}); the trace is sent marked ${TRUNCATED_KEY}`,
        );
      }
    } else {
      this.keep(rec, span, parentId);
    }
    if (rec.open === 0) {
      this.settleRoot(rec);
      notify(rec);
    }
    this.release(rec);
  }

  /**
   * A span of another instrumentation that is not kept (HTTP, DB ...): it is left out, and its
   * kept descendants re-parent to its nearest kept ancestor when they are sent.
   */
  onEndTransparent(span: ReadableSpan): void {
    if (this.forced?.has(span)) return;
    const rec = this.records.get(span.spanContext().traceId);
    if (!rec) return;
    if (endOpenSpan(rec, span)) this.spansOpen--;
    (rec.transparent ??= new Map()).set(span.spanContext().spanId, parentSpanIdOf(span) ?? null);
    if (rec.held?.length && rec.phase !== "open" && rec.phase !== "queued") {
      // Children held for it can go now, under its parent.
      rec.late ??= { spans: [] };
      this.sink.scheduleUpdate(rec);
    }
    if (rec.open === 0) {
      this.settleRoot(rec);
      notify(rec);
    }
    this.release(rec);
  }

  /** Whether any span held of the trace (ended, open, held for a parent or late) names this span id as its parent. */
  hasChildren(traceId: string, spanId: string): boolean {
    const rec = this.records.get(traceId);
    if (!rec) return false;
    for (const list of [rec.spans, rec.openSpans, rec.held ?? [], rec.late?.spans ?? []]) {
      for (const s of list) if (parentSpanIdOf(s) === spanId) return true;
    }
    return false;
  }

  /** Whether a span with this id is open in the trace's record. */
  isOpen(traceId: string, spanId: string): boolean {
    const rec = this.records.get(traceId);
    if (!rec) return false;
    for (const open of rec.openSpans) if (open.spanContext().spanId === spanId) return true;
    return false;
  }

  /**
   * The local root of a bridged trace ended without a type of its own: it is the trace's root
   * (a base span, `markBase` types it) when anything under it is kept, else the trace is let
   * go. While spans under it still run (an observed agent, an LLM call left running after the
   * request), the decision waits for them.
   */
  onEndLocalRoot(span: ReadableSpan, markBase: () => void): void {
    const rec = this.records.get(span.spanContext().traceId);
    if (!rec) return;
    if (endOpenSpan(rec, span)) this.spansOpen--;
    (rec.pendingRoots ??= []).push({ span, markBase });
    this.settleRoot(rec);
  }

  /**
   * Decides the pending local roots once nothing of the trace runs: all kept when anything under
   * them is (requests sharing an incoming `traceparent` are roots of one trace), else let go.
   */
  private settleRoot(rec: TraceRecord): void {
    const pending = rec.pendingRoots;
    if (!pending || rec.open > 0) return;
    rec.pendingRoots = undefined;
    if (rec.spanCount > 0 || (rec.held?.length ?? 0) > 0) {
      for (const root of pending) {
        root.markBase();
        this.keep(rec, root.span, undefined);
      }
      this.release(rec);
    } else {
      for (const root of pending) this.discard(root.span);
    }
  }

  /** Whether a span of this trace was kept so far (the bridge keeps a local root only then). */
  hasKept(traceId: string): boolean {
    const rec = this.records.get(traceId);
    return rec !== undefined && (rec.spanCount > 0 || (rec.held?.length ?? 0) > 0);
  }

  /**
   * Lets go of a trace whose local root ended with nothing worth sending (only infrastructure
   * spans): not counted as a loss; later spans under it are left out too.
   */
  discard(root: ReadableSpan): void {
    const rec = this.records.get(root.spanContext().traceId);
    (this.dropped ??= new WeakSet()).add(root);
    if (!rec) return;
    if (rec.phase === "open") this.running--;
    this.spansOpen -= rec.open;
    rec.open = 0;
    clearOpenSpans(rec);
    this.records.delete(rec.traceId);
    notify(rec);
  }

  /**
   * Sends now what is held of every trace with open spans: running ones with their open spans
   * closed and marked, spans still open in traces already sent as late updates, likewise.
   * Their real ends are ignored later (and counted).
   */
  forceEndAll(reason: ForceEndReason, records: Iterable<TraceView> = this.records.values()): void {
    for (const rec of [...records]) if (rec.open > 0 && rec.phase !== "failed" && !rec.discarded) this.forceEnd(recordOf(rec), reason);
  }

  /**
   * Whether a span may be kept: within the limit, or the root, or an ancestor of a kept span or
   * of a span still open (dropping it would leave that span pointing at nothing). A child of a
   * dropped span is dropped too.
   */
  private keeps(rec: TraceRecord, span: ReadableSpan, parentId: string | undefined): boolean {
    if (this.dropped?.has(span)) return false;
    if (rec.spanCount < this.limits.maxSpansPerTrace || !parentId) return true;
    const spanId = span.spanContext().spanId;
    if (this.neededParents(rec).has(spanId)) return true;
    for (const open of rec.openSpans) if (parentSpanIdOf(open) === spanId) return true;
    return false;
  }

  /**
   * The parents of the spans kept so far, built when a trace first reaches its limit (from what
   * is still held: spans already sent have had their parents kept or still open) and kept up
   * from then on.
   */
  private neededParents(rec: TraceRecord): Set<string> {
    if (rec.neededParents) return rec.neededParents;
    const needed = new Set<string>();
    for (const list of [rec.spans, rec.late?.spans ?? [], rec.held ?? []]) {
      for (const span of list) {
        const parent = parentSpanIdOf(span);
        if (parent) needed.add(parent);
      }
    }
    rec.neededParents = needed;
    return needed;
  }

  /** Adds a span to what is sent of its trace: with the trace, or as a late update. */
  private keep(rec: TraceRecord, span: ReadableSpan, parentId: string | undefined): void {
    if (rec.discarded) return;
    rec.spanCount++;
    // Only past the limit does anyone ask which spans are parents of kept ones.
    if (parentId && rec.neededParents) rec.neededParents.add(parentId);
    if (rec.phase === "open" || rec.phase === "queued") {
      // Most traces hold one span: an array of exactly one, not one grown by push (17 slots).
      if (rec.spans.length === 0) rec.spans = [span];
      else rec.spans.push(span);
      if (!parentId && rec.phase === "open") this.handOff(rec, span);
    } else {
      rec.late ??= { spans: [] };
      rec.late.spans.push(span);
      this.sink.scheduleUpdate(rec);
    }
  }

  /** The local root ended: the trace is complete but for late spans. */
  private handOff(rec: TraceRecord, root: ReadableSpan): void {
    this.running--;
    markQueued(rec, root);
    this.sink.enqueue(rec);
  }

  private forceEnd(rec: TraceRecord, reason: ForceEndReason): void {
    const endTime = preciseNow();
    const open = [...rec.openSpans];
    if (rec.spanCount === 0 && !rec.held?.length && open.every((s) => !getSpanData(s) && !foreignSpanClaimed(s))) {
      // Only spans of other instrumentations that no convention reads, none kept (a long-lived
      // HTTP request, say): nothing worth sending; let it go quietly. An llm call whose
      // instrumentation never ended it (a rejected call, in some) is sent, marked unfinished.
      const root = rec.pendingRoots?.[0]?.span ?? open.find((s) => !parentSpanIdOf(s)) ?? open[0];
      if (root) this.discard(root);
      return;
    }
    const forced = (this.forced ??= new WeakSet());
    const views: ReadableSpan[] = [];
    for (const span of open) {
      forced.add(span);
      // Open spans under a dropped span stay out, like their parent.
      if (!this.dropped?.has(span)) views.push(unfinishedView(span, endTime));
    }
    clearOpenSpans(rec);
    this.spansOpen -= rec.open;
    rec.open = 0;
    this.forcedTraces++;
    this.forcedSpans += views.length;
    if (rec.phase === "open" || rec.phase === "queued") rec.fields.metadata[UNFINISHED_SPANS_KEY] = views.length;
    else if (views.length > 0) {
      rec.late ??= { spans: [] };
      rec.late.metadata = { ...rec.late.metadata, [UNFINISHED_SPANS_KEY]: views.length };
    }
    if (isReportableCount(this.forcedTraces)) {
      this.logger.warn(
        `${this.forcedTraces} trace(s) sent with spans still open (${reason}; e.g. trace ${rec.uuid}, ${views.length} open): they are marked ${UNFINISHED_SPAN_KEY}`,
      );
    }
    // Parents first: a view is pushed after the view of its parent, so no request names a parent
    // that comes later.
    for (const view of parentsFirst(views)) this.keep(rec, view, parentSpanIdOf(view));
    for (const root of rec.pendingRoots ?? []) {
      root.markBase();
      this.keep(rec, root.span, undefined);
    }
    rec.pendingRoots = undefined;
    if (rec.phase === "open") {
      // The root was never seen here (it belongs to another runtime, or started before a
      // configure()): the earliest kept span stands in as the root, so the trace still goes out.
      const first = rec.spans[0];
      if (first) {
        const stand = Object.create(first) as ReadableSpan;
        setParentOverride(stand, null);
        rec.spans[0] = stand;
        this.handOff(rec, stand);
      } else {
        this.running--;
        markNothingToSend(rec);
      }
    }
    notify(rec);
    this.release(rec);
  }

  /** Force-ends every trace held past `maxTraceDurationMillis`. */
  private sweep(): void {
    const now = this.limits.clock.now();
    const max = this.limits.maxTraceDurationMillis;
    const stale: TraceRecord[] = [];
    for (const rec of this.records.values()) if (rec.open > 0 && now - rec.startedAt >= max) stale.push(rec);
    if (stale.length > 0) this.forceEndAll("maxTraceDurationMillis", stale);
  }

  /** Checks for stuck traces every quarter of `maxTraceDurationMillis` while any is held. */
  private armSweep(): void {
    if (this.sweepTimer !== undefined) return;
    const every = Math.max(1, Math.ceil(this.limits.maxTraceDurationMillis / 4));
    // Left to run out when the last span ends (no clearTimeout per trace: short traces one after
    // the other would pay a timer each); it re-arms only while spans are open.
    this.sweepTimer = this.limits.clock.setTimeout(() => {
      this.sweepTimer = undefined;
      this.sweep();
      if (this.spansOpen > 0) this.armSweep();
    }, every);
  }

  /** Applies `updateCurrentTrace` to the trace with this id. */
  updateTrace(traceId: string, update: SafeTraceUpdate): void {
    const rec = this.records.get(traceId);
    if (!rec || rec.discarded) return;
    if (rec.phase === "open" || rec.phase === "queued") {
      applyTraceUpdate(rec, update);
      return;
    }
    if (rec.phase === "failed") return;
    const ignored = applyLateTraceUpdate(rec, update);
    if (ignored.length > 0 && !this.warnedIgnoredFields) {
      this.warnedIgnoredFields = true;
      this.logger.warn(
        `updateCurrentTrace after trace ${rec.uuid} was sent: only output, environment, metadata and tags can still change (spec 4.6); ignored ${ignored.join(", ")}`,
      );
    }
    this.sink.scheduleUpdate(rec);
  }

  /**
   * Drops a trace the app asked to drop (`updateCurrentTrace({ drop: true })`): nothing of it is
   * sent from now on, spans that end later included. `"dropped"` when none of it was sent;
   * `"partly"` when its POST had already started (what is still to come is dropped, what went
   * out stays); `"unknown"` when the SDK holds no such trace (already delivered and let go).
   * `byApp` false: the SDK drops it (Next.js aborted the prerender that made its model call),
   * not counted in `tracesDiscarded`.
   */
  drop(traceId: string, byApp = true): "dropped" | "partly" | "unknown" | "again" {
    if (this.discardedIds.has(traceId)) return "again";
    const rec = this.records.get(traceId);
    this.discardedIds.set(traceId, true);
    if (!rec) return "unknown";
    const whole = rec.phase === "open" || rec.phase === "queued";
    rec.discarded = true;
    if (rec.phase === "open") {
      this.running--;
      markDroppedByApp(rec);
    }
    // Queued: the sink (the exporter) takes it out of its queue (and its counts).
    this.sink.discard(rec);
    this.spansOpen -= rec.open;
    rec.open = 0;
    clearOpenSpans(rec);
    rec.held = undefined;
    rec.late = undefined;
    rec.pendingRoots = undefined;
    if (whole && byApp) this.tracesDiscarded++;
    this.records.delete(traceId);
    notify(rec);
    return whole ? "dropped" : "partly";
  }

  /** Whether the app dropped this trace (remembered for a while after its record was let go). */
  isDropped(traceId: string): boolean {
    return this.discardedIds.has(traceId);
  }

  /** Forgets a record once nothing more can happen to it. Called after every change. */
  release(rec: TraceView): void {
    if ((rec.phase === "sent" || rec.phase === "failed") && rec.open === 0 && !rec.late && !rec.putInFlight) {
      this.records.delete(rec.traceId);
    }
  }

  async forceFlush(): Promise<void> {
    await this.sink.flush();
  }

  async shutdown(): Promise<void> {
    await this.sink.shutdown();
  }
}

/** Marks a span that says it started before its parent to be sent as starting with it. */
function floorStart(span: Span, parent: object | undefined): void {
  const parentStart = (parent as { startTime?: HrTime } | undefined)?.startTime;
  if (!Array.isArray(parentStart)) return;
  const floor = sentStartOf(parent as { startTime: HrTime });
  if (isLater(floor, span.startTime)) setStartFloor(span, floor);
}

/** The parent span object (given, or from the start context), when there is one. */
function parentOf(span: Span, parentContext: Context, parentSpan: ParentSpan): object | undefined {
  if (!parentSpanIdOf(span)) return undefined;
  return parentSpan === undefined ? otelTrace.getSpan(parentContext) : (parentSpan ?? undefined);
}

