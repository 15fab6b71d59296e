import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { llmInputMessages } from "../../src/encode/llm-input.js";
import { applyTestCase, REQUIRED_FIELD_PLACEHOLDERS, shapeValue } from "../../src/encode/wire.js";
import { providerName } from "../../src/semconv/providers.js";
import { spanUuid } from "../../src/spans/ids.js";
import type { JsonValue } from "../../src/spans/json-value.js";
import { parentSpanIdOf, sentStartOf, type SpanData } from "../../src/spans/span-data.js";
import { hrTimeToIso, isLater } from "../../src/spans/time.js";
import { UNFINISHED_SPAN_KEY } from "../../src/traces/unfinished.js";
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
