import type { Logger } from "../logger.js";
import { type SpanType, testCaseFieldNames, typeFieldNames } from "./fields.js";
import { type JsonValue, toJsonValue } from "./serialize.js";

type Kind = "string" | "integer" | "number" | "strings" | "toolCalls" | "testCase";

const kinds: Record<string, Kind> = {
  model: "string",
  provider: "string",
  inputTokenCount: "integer",
  outputTokenCount: "integer",
  costPerInputToken: "number",
  costPerOutputToken: "number",
  promptAlias: "string",
  promptVersion: "string",
  promptLabel: "string",
  promptCommitHash: "string",
  embedder: "string",
  topK: "integer",
  chunkSize: "integer",
  availableTools: "strings",
  agentHandoffs: "strings",
  description: "string",
  metricCollection: "string",
  llmTestCase: "testCase",
  expectedOutput: "string",
  retrievalContext: "strings",
  context: "strings",
  toolsCalled: "toolCalls",
  expectedTools: "toolCalls",
};

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof v === "string";
    case "integer":
      return Number.isInteger(v) && (v as number) >= 0;
    case "number":
      return typeof v === "number" && Number.isFinite(v) && v >= 0;
    case "strings":
      return Array.isArray(v) && v.every((s) => typeof s === "string");
    case "toolCalls":
      return Array.isArray(v) && v.every((t) => t !== null && typeof t === "object" && typeof t.name === "string");
    case "testCase": {
      if (v === null || typeof v !== "object") return false;
      const tc = v as Record<string, unknown>;
      return typeof tc.input === "string" && typeof tc.actualOutput === "string";
    }
  }
}

const expected: Record<Kind, string> = {
  string: "a string",
  integer: "a non-negative integer",
  number: "a non-negative number",
  strings: "a list of strings",
  toolCalls: "a list of tool calls with a name",
  testCase: "an object with string input and actualOutput",
};

/**
 * Picks the span fields that apply to a span of `type` and have the right shape, JSON-safe.
 * What does not fit is left out with a warning: one bad field must not get the whole trace
 * rejected by the service.
 */
export function pickSpanFields(type: SpanType, source: object, logger: Logger): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  const allowed: readonly string[] = typeFieldNames[type];
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const kind = kinds[key];
    if (!kind) continue;
    const isTypeField = !(testCaseFieldNames as readonly string[]).includes(key) && key !== "metricCollection" && key !== "llmTestCase";
    if (isTypeField && !allowed.includes(key)) {
      logger.debug(`field ${key} does not apply to ${type} spans; ignored`);
      continue;
    }
    if (!fits(kind, value)) {
      logger.warn(`span field ${key} must be ${expected[kind]}; ignored`);
      continue;
    }
    out[key] = toJsonValue(value);
  }
  return out;
}

/** Checks one trace field the same way; returns false (with a warning) when it does not fit. */
export function traceFieldFits(key: string, value: unknown, logger: Logger): boolean {
  const kind: Kind | undefined =
    key === "tags" ? "strings" : ["name", "threadId", "userId", "environment"].includes(key) ? "string" : kinds[key];
  if (!kind) return true;
  if (fits(kind, value)) return true;
  logger.warn(`trace field ${key} must be ${expected[kind]}; ignored`);
  return false;
}
