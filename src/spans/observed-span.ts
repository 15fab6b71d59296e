import {
  type Attributes,
  type AttributeValue,
  diag,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
} from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { EMPTY_RESOURCE, isAttributeValue, isTimeInput, millisToHrTime, type Resource, sanitizeAttributes } from "../util/otel-core.js";
import { SPAN_DATA, SPAN_OWNER, type SpanData } from "./span-data.js";
import { preciseNow } from "./time.js";
import { keptShapes } from "./kept-shapes.js";

/** What hears of an observed span's start and end: the runtime's trace assembler. */
export interface SpanSink {
  onEnd(span: ReadableSpan): void;
}

/** `@opentelemetry/core`'s type, as sdk-trace-base's ReadableSpan names it (core is not a dependency). */
type InstrumentationScope = ReadableSpan["instrumentationScope"];

const SCOPE: InstrumentationScope = Object.freeze({ name: "evaltrace" });
/** The empty resource, as `@opentelemetry/resources` makes it (that package is not loaded by `import "evaltrace"`). */
const RESOURCE: Resource = EMPTY_RESOURCE;
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];
const NO_EVENTS: TimedEvent[] = Object.freeze([]) as unknown as TimedEvent[];
/** `endTime` until the span ends (the SDK's too is `[0, 0]`). */
const NOT_ENDED: HrTime = Object.freeze([0, 0]) as unknown as HrTime;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
/** The SDK's default span limits: what an app writes to our span in a loop stays bounded (events drop the oldest). */
const MAX_ATTRIBUTES = 128;
const MAX_EVENTS = 128;
const MAX_LINKS = 128;

/**
 * The span of `observe()` and our integrations. Only our own trace assembler ever sees it (our
 * spans go through no OpenTelemetry provider), so it is the OTel SDK's span without what only an
 * app's pipeline needs: no span limits, resource, sampler or processor chain to walk, and the
 * attributes, links and events shared empty (or the type's frozen attributes) until something
 * writes one. To every other instrumentation it is an ordinary span in the context: its
 * `spanContext()` parents theirs, and `setAttribute`, `addEvent`, `setStatus`, `updateName`,
 * `recordException` and `end` behave as on the SDK's span.
 */
export class ObservedSpan implements Span, ReadableSpan {
  endTime: HrTime = NOT_ENDED;
  ended = false;
  status: SpanStatus = UNSET;
  links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  // Set on every span of ours right after it starts (span-data.ts): declared here, so that
  // setting them neither reshapes the span nor allocates room for them.
  [SPAN_DATA]: SpanData | undefined = undefined;
  [SPAN_OWNER]: object | undefined = undefined;
  /** What the limits dropped, made on the first drop (most spans never drop anything). */
  private drops: { attributes: number; events: number; links: number } | undefined = undefined;

  // What is the same for every span of ours is read from the prototype, not stored in each.
  get kind(): SpanKind {
    return SpanKind.INTERNAL;
  }
  get resource(): Resource {
    return RESOURCE;
  }
  get instrumentationScope(): InstrumentationScope {
    return SCOPE;
  }
  /** Attributes not set because the span had {@link MAX_ATTRIBUTES} already. */
  get droppedAttributesCount(): number {
    return this.drops?.attributes ?? 0;
  }
  /** Events dropped (the oldest) past {@link MAX_EVENTS}. */
  get droppedEventsCount(): number {
    return this.drops?.events ?? 0;
  }
  /** Links not added past {@link MAX_LINKS}. */
  get droppedLinksCount(): number {
    return this.drops?.links ?? 0;
  }

  private dropped(): { attributes: number; events: number; links: number } {
    this.drops ??= { attributes: 0, events: 0, links: 0 };
    return this.drops;
  }

  constructor(
    public name: string,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly startTime: HrTime,
    /** Shared and frozen until written: copied on the first write. */
    public attributes: Attributes,
    private readonly sink: SpanSink,
  ) {
    keptShapes.span = this;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get duration(): HrTime {
    if (!this.ended) return [-1, -1];
    let seconds = this.endTime[0] - this.startTime[0];
    let nanos = this.endTime[1] - this.startTime[1];
    if (nanos < 0) {
      seconds -= 1;
      nanos += 1e9;
    }
    return [seconds, nanos];
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (this.ended || value == null || key.length === 0 || !isAttributeValue(value)) return this;
    if (Object.isFrozen(this.attributes)) this.attributes = { ...this.attributes };
    if (!Object.hasOwn(this.attributes, key) && Object.keys(this.attributes).length >= MAX_ATTRIBUTES) {
      this.dropped().attributes++;
      return this;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    // As the SDK: null or undefined (an app forwarding optional attributes) sets nothing.
    if (attributes == null) return this;
    for (const key in attributes) if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    let attributes: Attributes | undefined;
    if (isTimeInput(attributesOrTime)) time ??= attributesOrTime;
    else attributes = attributesOrTime;
    if (this.events === NO_EVENTS) this.events = [];
    if (this.events.length >= MAX_EVENTS) {
      this.events.shift();
      this.dropped().events++;
    }
    this.events.push({ name, attributes: sanitizeAttributes(attributes), time: toHrTime(time), droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links.length >= MAX_LINKS) {
      this.dropped().links++;
      return this;
    }
    if (this.links === NO_LINKS) this.links = [];
    this.links.push({ context: link.context, attributes: sanitizeAttributes(link.attributes) });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final, a message only on ERROR and only a string.
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === "string" ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    // As the SDK's span: the type is a truthy code, else the name; an exception with neither a
    // type nor a message is not recorded. Unlike it, a value whose reading throws is not either.
    try {
      const attributes: Attributes = {};
      if (typeof exception === "string") attributes["exception.message"] = exception;
      else if (exception) {
        if (exception.code) attributes["exception.type"] = String(exception.code);
        else if (exception.name) attributes["exception.type"] = exception.name;
        if (exception.message) attributes["exception.message"] = exception.message;
        if (exception.stack) attributes["exception.stacktrace"] = exception.stack;
      }
      if (attributes["exception.type"] || attributes["exception.message"]) this.addEvent("exception", attributes, time);
      else diag.warn("evaltrace: an exception with neither a type nor a message was not recorded");
    } catch {
      diag.warn("evaltrace: an exception that could not be read was not recorded");
    }
  }

  end(endTime?: TimeInput): void {
    if (this.ended) {
      diag.error(`${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`);
      return;
    }
    const end = toHrTime(endTime);
    // Never before its start (the SDK clamps the same way).
    this.endTime = end[0] < this.startTime[0] || (end[0] === this.startTime[0] && end[1] < this.startTime[1]) ? this.startTime : end;
    this.ended = true;
    this.sink.onEnd(this);
  }
}

/** A time the app passed (HrTime, epoch milliseconds or a Date), or now. */
function toHrTime(time: TimeInput | undefined): HrTime {
  if (time === undefined) return preciseNow();
  // A copy: the span's times are read when it is sent, and the app may reuse its array.
  if (Array.isArray(time)) return [time[0], time[1]];
  if (time instanceof Date) return millisToHrTime(time.getTime());
  // A number at most performance.now() is a performance timestamp, as the SDK reads it.
  return typeof time === "number" ? millisToHrTime(time <= performance.now() ? performance.timeOrigin + time : time) : preciseNow();
}
