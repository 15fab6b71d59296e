import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { llmInputMessages } from "../../src/encode/llm-input.js";
import { applyTestCase, REQUIRED_FIELD_PLACEHOLDERS, shapeTraceValue, shapeValue, spanListKeys } from "../../src/encode/wire.js";
import { providerName } from "../../src/semconv/providers.js";
import { spanUuid, traceUuid } from "../../src/spans/ids.js";
import type { JsonValue } from "../../src/spans/json-value.js";
import { foreignSpanData, getSpanData, parentSpanIdOf, sentStartOf, type SpanData } from "../../src/spans/span-data.js";
import { hrTimeToIso, isLater } from "../../src/spans/time.js";
import type { OutgoingTrace } from "../../src/traces/outgoing.js";
import { isUnfinished, UNFINISHED_SPAN_KEY } from "../../src/traces/unfinished.js";
import { MAX_ERROR_CHARS, MAX_NAME_CHARS, truncateString } from "../../src/util/string-limits.js";

/**
 * The service's span object as the exporter made it before spans were written straight from
 * their data (`toWireSpan`, `fillRequired`, the unfinished mark, then `JSON.stringify`): the
 * reference the byte writer must match, byte for byte (test/encode/span-bytes.test.ts).
 */
export function referenceSpan(span: ReadableSpan, data: SpanData, o: { unfinished: boolean; fillRequired: boolean }): Record<string, unknown> {
  const ctx = span.spanContext();
  const type = data.type;
  const foreign = data.foreign === true;
  const statusErrored = span.status.code === SpanStatusCode.ERROR;
  const errored = statusErrored || data.error !== undefined;
  const wire: Record<string, unknown> = {
    name: data.name ?? truncateString(typeof span.name === "string" ? span.name : String(span.name), MAX_NAME_CHARS),
    type,
    status: errored ? "ERRORED" : "SUCCESS",
    error: errored ? errorText(statusErrored ? span.status.message : data.error) : undefined,
    input: undefined,
    output: undefined,
  };
  if (data.input !== undefined) {
    wire.input = foreign ? data.input : type === "llm" ? (llmInputMessages(data.input, data.inputPinned ? 1 : (data.argumentCount ?? 1)) as unknown as JsonValue) : shapeValue(type, data.input);
  }
  if (data.output !== undefined) wire.output = foreign ? data.output : shapeValue(type, data.output, true);
  if (data.metadata) wire.metadata = data.metadata;
  for (const key in data.fields) if (Object.hasOwn(data.fields, key)) wire[key] = data.fields[key];
  if (!foreign) applyTestCase(wire, type, !data.inputPinned, !data.outputPinned);
  if (typeof wire.provider === "string") wire.provider = providerName(wire.provider);
  if (type === "agent") {
    wire.availableTools ??= [];
    wire.agentHandoffs ??= [];
  }
  if (o.fillRequired) {
    if (type === "llm" && (typeof wire.model !== "string" || wire.model === "")) wire.model = REQUIRED_FIELD_PLACEHOLDERS.model;
    if (type === "retriever" && (typeof wire.embedder !== "string" || wire.embedder === "")) wire.embedder = REQUIRED_FIELD_PLACEHOLDERS.embedder;
  }
  if (o.unfinished) wire.metadata = { ...(wire.metadata as object | undefined), [UNFINISHED_SPAN_KEY]: true };
  // The head as the writer put it: uuid, name, type, status, times, error, parent, input, output, the rest.
  const start = sentStartOf(span);
  const end = start !== span.startTime && isLater(start, span.endTime) ? start : span.endTime;
  const parentId = parentSpanIdOf(span);
  const { name, type: t, status, error, input, output, ...rest } = wire;
  return {
    uuid: spanUuid(ctx.traceId, ctx.spanId),
    name,
    type: t,
    status,
    startTime: hrTimeToIso(start),
    endTime: hrTimeToIso(end),
    ...(error !== undefined ? { error } : {}),
    ...(parentId ? { parentUuid: spanUuid(ctx.traceId, parentId) } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...rest,
  };
}

function errorText(message: unknown): string {
  return typeof message === "string" && message ? truncateString(message, MAX_ERROR_CHARS) : "error";
}

/**
 * The service's trace object as the exporter made it before (its spans by {@link referenceSpan},
 * its name, end, input and output from its root or, for a bridged root, the earliest span under
 * it that has them; its fields and test case), with its uuid and times as strings.
 */
export function referenceTrace(out: OutgoingTrace, environment: string): Record<string, unknown> {
  const { root, spans, fields: f } = out;
  const rootData = getSpanData(root);
  const lists: Record<string, Record<string, unknown>[]> = { baseSpans: [], llmSpans: [], retrieverSpans: [], agentSpans: [], toolSpans: [] };
  let end = root.endTime;
  let rootWire: Record<string, unknown> | undefined;
  let under: { span: ReadableSpan; wire: Record<string, unknown> } | undefined;
  const bridgedRootId = rootData === undefined ? root.spanContext().spanId : undefined;
  for (const span of spans) {
    const data = getSpanData(span) ?? foreignSpanData(span);
    const wire = referenceSpan(span, data, { unfinished: isUnfinished(span), fillRequired: true });
    if (bridgedRootId !== undefined && (wire.input !== undefined || wire.output !== undefined) && parentSpanIdOf(span) === bridgedRootId) {
      if (under === undefined || isLater(under.span.startTime, span.startTime)) under = { span, wire };
    }
    if (span === root) rootWire = wire;
    lists[spanListKeys[data.type]]!.push(wire);
    if (isLater(span.endTime, end)) end = span.endTime;
  }
  const wire: Record<string, unknown> = {
    uuid: traceUuid(root.spanContext().traceId),
    name: f.name ?? (rootWire ? rootWire.name : root.name),
    startTime: hrTimeToIso(root.startTime),
    endTime: hrTimeToIso(end),
    status: root.status.code === 2 ? "ERRORED" : "SUCCESS",
    environment: f.environment ?? environment,
    ...lists,
    input: undefined,
    output: undefined,
  };
  const input = f.input ?? rootData?.input ?? (rootWire?.input as JsonValue | undefined) ?? (under?.wire.input as JsonValue | undefined);
  const output = f.output ?? rootData?.output ?? (rootWire?.output as JsonValue | undefined) ?? (under?.wire.output as JsonValue | undefined);
  if (input !== undefined) wire.input = shapeTraceValue(input);
  if (output !== undefined) wire.output = shapeTraceValue(output);
  if (f.tags.length > 0) wire.tags = [...new Set(f.tags)];
  if (Object.keys(f.metadata).length > 0) wire.metadata = f.metadata;
  if (f.threadId !== undefined) wire.threadId = f.threadId;
  if (f.userId !== undefined) wire.userId = f.userId;
  if (f.metricCollection !== undefined) wire.metricCollection = f.metricCollection;
  if (f.llmTestCase !== undefined) wire.llmTestCase = f.llmTestCase;
  Object.assign(wire, f.extra);
  if (f.llmTestCase !== undefined) applyTestCase(wire, "trace", f.input === undefined, f.output === undefined);
  return wire;
}
