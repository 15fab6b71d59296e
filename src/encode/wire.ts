import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { jsonText } from "./json-text.js";

/**
 * The service's trace format where the byte writers (span-bytes.ts, wire-bytes.ts) and the
 * readers of what was sent share it: the span lists, the test-case fields sent flat, the
 * placeholders of required fields, and how captured values are shaped by span type (spec 2.5).
 */

/** The five span lists of a trace, by type. */
export const spanListKeys = {
  base: "baseSpans",
  llm: "llmSpans",
  retriever: "retrieverSpans",
  agent: "agentSpans",
  tool: "toolSpans",
} as const satisfies Record<SpanType, string>;

export type SpanListKey = (typeof spanListKeys)[SpanType];

/** Test-case fields the service reads flat on a span or trace, beside `llmTestCase`. */
export const FLAT_TEST_CASE_FIELDS = ["expectedOutput", "retrievalContext", "context", "toolsCalled", "expectedTools"] as const;

/**
 * With a test case, its input and actual output become the span's or trace's own (unless the
 * app set those itself: `useInput` / `useOutput` false), and its other fields are also sent
 * flat, the way the live service evaluates them.
 */
export function applyTestCase(wire: { [key: string]: unknown }, type: SpanType | "trace", useInput: boolean, useOutput: boolean): void {
  const tc = wire.llmTestCase;
  if (tc === null || typeof tc !== "object" || Array.isArray(tc)) return;
  const testCase = tc as { [key: string]: JsonValue };
  if (useInput && typeof testCase.input === "string") wire.input = type === "llm" ? [{ role: "user", content: testCase.input }] : testCase.input;
  if (useOutput && typeof testCase.actualOutput === "string") wire.output = testCase.actualOutput;
  for (const key of FLAT_TEST_CASE_FIELDS) if (testCase[key] !== undefined && wire[key] === undefined) wire[key] = testCase[key];
}

/** Placeholders for the fields the service's published schema requires (wire-format notes). */
export const REQUIRED_FIELD_PLACEHOLDERS = { model: "unknown-model", embedder: "default-embedder" } as const;

/**
 * Shapes a captured value the way the spec types it: base span input/output are strings; llm
 * span input is a list of `{role, content}` and its output a string or such a list. Other
 * types' shapes are "not shown" in the spec and go as captured JSON.
 */
export function shapeValue(type: SpanType, value: JsonValue, isOutput = false): JsonValue {
  if (type === "base") return jsonText(value);
  if (type !== "llm") return value;
  if (isMessageList(value)) return value.map((m) => ({ role: m.role, content: jsonText(m.content) }));
  if (isOutput) return jsonText(value);
  if (Array.isArray(value) && value.length === 1 && isMessageList(value[0] ?? null)) return shapeValue(type, value[0]!);
  return [{ role: "user", content: jsonText(value) }];
}

function isMessageList(value: JsonValue): value is { role: string; content: JsonValue }[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((m) => m !== null && typeof m === "object" && !Array.isArray(m) && typeof m.role === "string" && "content" in m)
  );
}

/** Shapes a trace-level input/output: strings on the wire (spec 2.5). */
export function shapeTraceValue(value: JsonValue): string {
  return jsonText(value);
}
