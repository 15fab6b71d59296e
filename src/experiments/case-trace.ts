import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { JsonBytes } from "../encode/json-bytes.js";
import { type SpanListKey, spanListKeys } from "../encode/wire.js";
import { SpanRun, writeUpdate } from "../encode/wire-bytes.js";
import type { Runtime } from "../runtime/runtime.js";
import { foreignSpanData, getSpanData, ownerOf } from "../spans/span-data.js";
import type { CapturedTrace, JsonObject } from "../testing/captured.js";
import { TraceParts } from "../testing/captured.js";
import { currentObservedSpan } from "../tracing/context.js";

/**
 * The trace of the case running now as `evaltrace/testing` gives it (a span tree of the wire
 * fields), read inside the case's root span when its task returned: the root (still open: its
 * end time is its start) and every span that ended under it. Each span is encoded as it will be
 * sent (the same bytes writer, without the placeholders of required fields the exporter adds),
 * without taking anything off the trace's record.
 * Undefined when tracing is off or the trace is not held; never throws (a scorer then gets none).
 */
export function caseTrace(fields: JsonObject): CapturedTrace | undefined {
  try {
    const root = currentObservedSpan();
    const rt = root ? (ownerOf(root) as Runtime | undefined) : undefined;
    const record = root && rt?.heldTrace?.(root.spanContext().traceId);
    if (!root || !record) return undefined;
    const ended: ReadableSpan[] = [...record.spans, ...(record.held ?? [])];
    const lists: Partial<Record<SpanListKey, SpanRun>> = {};
    for (const span of [root as unknown as ReadableSpan, ...ended]) {
      const data = getSpanData(span) ?? foreignSpanData(span);
      (lists[spanListKeys[data.type]] ??= new SpanRun(false)).add(span, data);
    }
    const slab = new JsonBytes(4096);
    writeUpdate(slab, lists);
    const body = JSON.parse(slab.text(0, slab.pos)) as JsonObject;
    // The open root has no end time yet: it ends, for this reading, where it started.
    for (const list of Object.values(body)) {
      for (const span of list as JsonObject[]) if (span.parentUuid === undefined) span.endTime = span.startTime ?? null;
    }
    return new TraceParts({ uuid: record.uuid, status: "SUCCESS", ...fields, ...body }).snapshot();
  } catch {
    return undefined;
  }
}
