import type { HrTime, Span } from "@opentelemetry/api";
import { processWide } from "../process-wide.js";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "./json-value.js";
import { parentSpanContextOf, SDK1_PARENT_SLOT } from "./span-shape.js";

/**
 * What evaltrace knows about one of its spans beyond OTel attributes: captured values already
 * made JSON-safe (so later mutation by the app cannot change them), and the type's fields.
 */
export interface SpanData {
  type: SpanType;
  input?: JsonValue;
  output?: JsonValue;
  /** Set once `updateCurrentSpan({ output })` ran, so the return value does not overwrite it. */
  outputPinned?: boolean;
  /** Set once `updateCurrentSpan({ input })` ran: the input is the app's own, not the captured arguments. */
  inputPinned?: boolean;
  /** How many arguments the observed function got (the captured input is their list when more than one). */
  argumentCount?: number;
  metadata?: { [key: string]: JsonValue };
  /** Type fields, test-case fields, metricCollection and llmTestCase, JSON-safe. */
  fields: { [key: string]: JsonValue };
  /** Set when the span is ended, so late updates are ignored like OTel ignores them. */
  ended?: boolean;
  /** The name sent, when not the span's own: a span of another instrumentation's, as its convention names it (bounded). */
  name?: string;
  /**
   * Set on the data of a span of another instrumentation ({@link ForeignSpanSource}): its input
   * and output are already as the wire carries them, and its fields are final (its test case,
   * made from that input and output, is not spread onto it).
   */
  foreign?: true;
  /** An error its convention read in a span of another instrumentation whose status says OK (sent as ERRORED with it). */
  error?: string;
}

// A symbol-keyed property on the span itself: cheaper than a WeakMap, and gone with the span.
// Symbol.for: the ESM and CommonJS copies of the package must read what the other wrote.
export const SPAN_DATA: unique symbol = Symbol.for("evaltrace.spanData") as typeof SPAN_DATA;

/** Attribute that marks our spans and carries their type for any other OTel exporter. */
export const SPAN_TYPE_ATTRIBUTE = "evaltrace.span.type";

export function setSpanData(span: Span | object, data: SpanData): void {
  (span as { [SPAN_DATA]?: SpanData })[SPAN_DATA] = data;
}

export function getSpanData(span: Span | object): SpanData | undefined {
  return (span as { [SPAN_DATA]?: SpanData })[SPAN_DATA];
}

const PARENT = Symbol.for("evaltrace.parentOverride");

/**
 * Overrides a span's parent for our traces: the span id of its nearest kept ancestor, or null
 * for a root. Set by the span processor for foreign spans whose parents were left out.
 */
export function setParentOverride(span: object, parentSpanId: string | null): void {
  (span as { [PARENT]?: string | null })[PARENT] = parentSpanId;
}

/** The parent span id to use for a span in our traces (undefined for a root). */
export function parentSpanIdOf(span: object): string | undefined {
  const override = (span as { [PARENT]?: string | null })[PARENT];
  if (override !== undefined) return override ?? undefined;
  return parentSpanContextOf(span)?.spanId;
}

const START_FLOOR = Symbol.for("evaltrace.startFloor");

/**
 * Marks a span of another instrumentation that says it started before its parent (a clock of
 * whole milliseconds, as LangChain's runs have): it is sent as starting with its parent, as the
 * service requires (spec 4.6 rule 4). The span itself is left as it is.
 */
export function setStartFloor(span: object, parentStart: HrTime): void {
  (span as { [START_FLOOR]?: HrTime })[START_FLOOR] = parentStart;
}

/** When a span is sent as starting: its own start, or its parent's where that is later. */
export function sentStartOf(span: { startTime: HrTime }): HrTime {
  return (span as { [START_FLOOR]?: HrTime })[START_FLOOR] ?? span.startTime;
}

export const SPAN_OWNER: unique symbol = Symbol.for("evaltrace.owner") as typeof SPAN_OWNER;

/**
 * Marks the runtime that records a span: its descendants go to the same runtime, even after a
 * `configure()` replaced it, so that a running trace is never split between two.
 */
export function setOwner(span: object, owner: object): void {
  (span as { [SPAN_OWNER]?: object })[SPAN_OWNER] = owner;
}

/** The runtime that records a span, when it is one of ours. */
export function ownerOf(span: object): object | undefined {
  return (span as { [SPAN_OWNER]?: object })[SPAN_OWNER];
}

/**
 * Where the encoder gets the span data of a span of another instrumentation: the bridge reads it
 * by its semantic convention once, when it ends (bridge/foreign-span.ts).
 */
export interface ForeignSpanSource {
  /** The data to send for `span` (the span itself, or an unfinished view of it: a ReadableSpan). */
  spanData(span: object): SpanData;
  /** Whether a convention reads `span`, as it stands, as one of ours (an llm call that never ended, say). */
  claims?(span: object): boolean;
  /** The type and name a convention reads `span` as, as it stands (its start attributes); undefined: none claims it. */
  claimed?(span: object): { type: SpanType; name: string } | undefined;
  /** A model call of ours (an llm span: zero-code's, an integration's) started under `span`, still open. */
  modelCallStarted?(span: object): void;
}

const FOREIGN = Symbol.for("evaltrace.foreignSpan");

/**
 * Sets where a span of another instrumentation gets its data: from the span processor's reader
 * when it starts (a span sent unfinished is read as it stands), from what it was read as when it
 * ends.
 */
export function setForeignSource(span: object, source: ForeignSpanSource): void {
  (span as { [FOREIGN]?: ForeignSpanSource })[FOREIGN] = source;
}

/** The data to send for a span of another instrumentation (a base span, should the bridge not have seen it start). */
export function foreignSpanData(span: object): SpanData {
  const source = (span as { [FOREIGN]?: ForeignSpanSource })[FOREIGN];
  return source ? source.spanData(span) : { type: "base", fields: { integration: "OpenTelemetry" }, foreign: true };
}

/**
 * Whether a span of another instrumentation that has not ended is, as it stands, something a
 * convention reads (an llm call whose instrumentation never ends a rejected call's span), so its
 * trace is worth sending unfinished rather than letting it go.
 */
export function foreignSpanClaimed(span: object): boolean {
  const source = (span as { [FOREIGN]?: ForeignSpanSource })[FOREIGN];
  try {
    return source?.claims?.(span) === true;
  } catch {
    return false;
  }
}

/**
 * Tells a span of another instrumentation that one of our llm spans started under it (a
 * framework's own model-call span around the SDK call zero-code records): one llm span per model
 * request (bridge/foreign-span.ts). Nothing for any other parent. Never throws.
 */
export function foreignModelCallUnder(parent: object): void {
  const source = (parent as { [FOREIGN]?: ForeignSpanSource })[FOREIGN];
  try {
    source?.modelCallStarted?.(parent);
  } catch {
    // The parent is read without it.
  }
}

/** What a convention reads a span of another instrumentation that has not ended as, as it stands; undefined: none, or not such a span. */
export function foreignSpanClaimedAs(span: object): SpanType | undefined {
  return foreignSpanClaim(span)?.type;
}

/** The type and name a convention reads a span of another instrumentation that has not ended as; undefined: none, or not such a span. */
export function foreignSpanClaim(span: object): { type: SpanType; name: string } | undefined {
  const source = (span as { [FOREIGN]?: ForeignSpanSource })[FOREIGN];
  try {
    return source?.claimed?.(span);
  } catch {
    return undefined;
  }
}

/** The runtime that saw a span of another instrumentation start, so its end goes to the same one whatever configure() did (bridge/span-processor.ts). */
export const TRACKED_SLOT = Symbol.for("evaltrace.tracked");
/** Where a span of another instrumentation keeps the scoped defaults it started under (scoped-defaults.ts). */
export const SCOPED_DEFAULTS_SLOT = Symbol.for("evaltrace.scopedDefaults");

/** Every slot the bridge may set on a span of another instrumentation, in the order they are made. */
const FOREIGN_SLOTS: readonly symbol[] = [PARENT, SPAN_OWNER, TRACKED_SLOT, FOREIGN, START_FLOOR, SCOPED_DEFAULTS_SLOT, SDK1_PARENT_SLOT];

/**
 * Makes every slot the bridge may set on a span of another instrumentation, unset, in one order,
 * before any is set. Set as needed, they would give the span class one shape per combination and
 * order (a local root, a span with a start floor, one with scoped defaults ...): the code that
 * reads them would see several, and each shape no kept span has would be forgotten by V8 at a
 * full GC, with the code built on it (kept-shapes.ts). A slot another copy of the package made
 * is left as it is.
 */
export function declareForeignSlots(span: object): void {
  const slots = span as { [key: symbol]: unknown };
  for (let i = 0; i < FOREIGN_SLOTS.length; i++) {
    const slot = FOREIGN_SLOTS[i]!;
    if (!(slot in slots)) slots[slot] = undefined;
  }
}

/**
 * Spans an integration made (an SDK call zero-code or a wrapper recorded; the spans of zero-code's
 * own AI SDK telemetry), as against the app's own (`observe()`, its telemetry): a model request
 * the app's framework recorded too is kept once (traces/model-call-fold.ts). One set for every
 * copy of the package in the process.
 */
const integrationSpans = processWide("spans.integrationSpans", () => new WeakSet<object>());

/** Marks a span as an integration's (see integrationSpans). */
export function markIntegrationSpan(span: object): void {
  integrationSpans.add(span);
}

/** Whether an integration made this span. */
export function isIntegrationSpan(span: object): boolean {
  return integrationSpans.has(span);
}
