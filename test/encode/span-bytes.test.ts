import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBytes } from "../../src/encode/json-bytes.js";
import { writeSpan } from "../../src/encode/span-bytes.js";
import { SpanRun, writeUpdate } from "../../src/encode/wire-bytes.js";
import type { SpanType } from "../../src/protocol/types.js";
import type { JsonValue } from "../../src/spans/json-value.js";
import { setSpanData, setStartFloor, type SpanData } from "../../src/spans/span-data.js";
import { newSlab } from "../../src/encode/batch-body.js";
import { TraceBodies } from "../../src/encode/trace-body.js";
import type { Logger } from "../../src/logger.js";
import type { OutgoingTrace } from "../../src/traces/outgoing.js";
import type { TraceFields, TraceView } from "../../src/traces/trace-view.js";
import { unfinishedView } from "../../src/traces/unfinished.js";
import { referenceSpan, referenceTrace } from "../helpers/reference-wire.js";

// Spans are written as JSON bytes straight from their span data, with no object made for them:
// every byte must be what JSON.stringify wrote of the span objects the exporter made before
// (test/helpers/reference-wire.ts), whatever the span's data, fields, test case and state.

const hex = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n });
const time = fc.tuple(fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }), fc.integer({ min: 0, max: 999_999_999 })) as fc.Arbitrary<HrTime>;
const text = fc.oneof(fc.string(), fc.constantFrom("", "gpt-4o-mini", "OpenAI", "anthropic.claude", '"q"', "é😀", "x".repeat(300)));
const testCase = fc.record(
  { input: fc.oneof(text, fc.integer()), actualOutput: fc.oneof(text, fc.constant(null)), expectedOutput: text, retrievalContext: fc.array(text, { maxLength: 2 }), toolsCalled: fc.array(fc.record({ name: text }), { maxLength: 2 }) },
  { requiredKeys: [] },
);
/** Fields as the checks and the bridge leave them, and some named like the span's own. */
const fieldsArb = fc.dictionary(
  fc.constantFrom("model", "provider", "inputTokenCount", "embedder", "availableTools", "agentHandoffs", "description", "metricCollection", "expectedOutput", "context", "integration", "metadata", "input", "output", "name", "status", "error"),
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), text, fc.constant(null), fc.constant("")),
  { maxKeys: 4 },
);
const spanArb = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  parentId: fc.option(hex(16), { nil: undefined }),
  name: text,
  dataName: fc.option(text, { nil: undefined }),
  type: fc.constantFrom<SpanType>("base", "llm", "retriever", "agent", "tool"),
  statusCode: fc.constantFrom(0, 1, 2),
  statusMessage: fc.option(text, { nil: undefined }),
  dataError: fc.option(text, { nil: undefined }),
  start: time,
  end: time,
  floor: fc.option(time, { nil: undefined }),
  input: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }])), { nil: undefined }),
  output: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
  argumentCount: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  inputPinned: fc.boolean(),
  outputPinned: fc.boolean(),
  foreign: fc.boolean(),
  metadata: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), { nil: undefined }),
  fields: fieldsArb,
  testCase: fc.option(testCase, { nil: undefined }),
  unfinished: fc.boolean(),
  fillRequired: fc.boolean(),
});

type SpanCase = typeof spanArb extends fc.Arbitrary<infer T> ? T : never;

function made(c: SpanCase, withData = true): { span: ReadableSpan; data: SpanData } {
  const span = {
    name: c.name,
    spanContext: () => ({ traceId: c.traceId, spanId: c.spanId, traceFlags: 1 }),
    parentSpanContext: c.parentId === undefined ? undefined : { traceId: c.traceId, spanId: c.parentId, traceFlags: 1 },
    status: { code: c.statusCode, message: c.statusMessage },
    startTime: c.start,
    endTime: c.end,
  } as unknown as ReadableSpan;
  if (c.floor !== undefined) setStartFloor(span, c.floor);
  if (!withData) return { span, data: { type: "base", fields: {} } };
  const fields = { ...c.fields } as { [key: string]: JsonValue };
  if (c.testCase !== undefined) fields.llmTestCase = c.testCase as JsonValue;
  const data: SpanData = { type: c.type, fields };
  if (c.dataName !== undefined) data.name = c.dataName;
  if (c.input !== undefined) data.input = c.input as JsonValue;
  if (c.output !== undefined) data.output = c.output as JsonValue;
  if (c.argumentCount !== undefined) data.argumentCount = c.argumentCount;
  if (c.inputPinned) data.inputPinned = true;
  if (c.outputPinned) data.outputPinned = true;
  if (c.metadata !== undefined) data.metadata = c.metadata as { [key: string]: JsonValue };
  if (c.foreign) {
    data.foreign = true;
    if (c.dataError !== undefined) data.error = c.dataError;
  }
  return { span, data };
}

describe("spans written straight from their data: the bytes of the span objects made before", () => {
  it("any span, as a request sends it or as mapped", () => {
    const w = new JsonBytes(64);
    fc.assert(
      fc.property(spanArb, (c) => {
        const { span, data } = made(c);
        w.reset();
        writeSpan(w, span, data, { unfinished: c.unfinished, fillRequired: c.fillRequired });
        expect(w.text()).toBe(JSON.stringify(referenceSpan(span, data, c)));
      }),
      { numRuns: 2000 },
    );
  });

  it("a late update's body: its span lists and fields in their order", () => {
    const w = new JsonBytes(64);
    fc.assert(
      fc.property(fc.array(spanArb, { maxLength: 3 }), fc.option(text, { nil: undefined }), fc.jsonValue(), (cases, output, metadata) => {
        const run = new SpanRun();
        const spans = cases.map((c) => made(c));
        for (const { span, data } of spans) run.add(span, data);
        const body = { llmSpans: run, endTime: "2026-01-02T03:04:05.000006Z", output, metadata, tags: ["a", '"b"'] };
        const expected = { llmSpans: spans.map(({ span, data }) => referenceSpan(span, data, { unfinished: false, fillRequired: true })), endTime: body.endTime, output, metadata, tags: body.tags };
        w.reset();
        writeUpdate(w, body);
        expect(w.text()).toBe(JSON.stringify(expected));
      }),
    );
  });
});

const traceFieldsArb = fc.record(
  {
    name: text,
    input: fc.jsonValue({ maxDepth: 2 }),
    output: fc.jsonValue({ maxDepth: 2 }),
    threadId: text,
    userId: text,
    environment: fc.constantFrom("production", "staging"),
    metricCollection: text,
    llmTestCase: fc.oneof(testCase, fc.constant(null)),
    tags: fc.array(fc.constantFrom("a", "b", '"c"'), { maxLength: 3 }),
    metadata: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    extra: fc.dictionary(fc.constantFrom("expectedOutput", "context", "retrievalContext"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

describe("traces written straight from their spans: the bytes of the trace objects made before", () => {
  it("any trace: its spans by type, its name, end, input and output from its root or the span under a bridged root, its fields", () => {
    const logger = { warn() {}, error() {}, info() {}, debug() {} } as unknown as Logger;
    const bodies = new TraceBodies({ environment: "development" }, logger);
    fc.assert(
      fc.property(spanArb, fc.array(spanArb, { maxLength: 4 }), fc.boolean(), traceFieldsArb, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), (rootCase, childCases, bridged, f, unfinished) => {
        const root = made({ ...rootCase, parentId: undefined }, !bridged);
        const traceId = rootCase.traceId;
        const rootId = rootCase.spanId;
        const spans: ReadableSpan[] = [];
        if (!bridged) setSpanData(root.span, root.data);
        spans.push(root.span);
        childCases.forEach((c, i) => {
          const child = made({ ...c, traceId, parentId: rootId, spanId: c.spanId === rootId ? "f".repeat(16) : c.spanId });
          setSpanData(child.span, child.data);
          spans.push(unfinished[i] ? unfinishedView(child.span, c.end) : child.span);
        });
        const fields = { tags: [], metadata: {}, extra: {}, ...f } as unknown as TraceFields;
        const out: OutgoingTrace = { rec: { traceId } as TraceView, root: root.span, spans, fields };
        const slab = newSlab(64);
        const p = bodies.prepare(out, slab);
        expect(slab.text(p.start, p.end)).toBe(JSON.stringify(referenceTrace(out, "development")));
      }),
      { numRuns: 1000 },
    );
  });
});
