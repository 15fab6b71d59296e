import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import type { Convention } from "./types.js";
import { json, str } from "./values.js";
import { readable } from "../spans/lc-values.js";

/** `traceloop.span.kind` → span type. */
const kinds: Record<string, SpanType> = { workflow: "base", task: "base", agent: "agent", tool: "tool" };

/** OpenLLMetry's entity values, readable; a `{"output": x}` or `{"args": [x]}` wrapper of one value unwrapped. */
function entity(v: string | undefined): JsonValue | undefined {
  const value = readable(json(v));
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "output") return value.output;
    if (Array.isArray(value.args) && value.args.length === 1 && (keys.length === 1 || (keys.length === 2 && "kwargs" in value))) {
      const only = value.args[0] ?? null;
      return typeof only === "string" ? (json(only) ?? only) : only;
    }
  }
  return value;
}

/**
 * OpenLLMetry (`@traceloop/*`) workflow, task, agent and tool spans: `traceloop.span.kind`,
 * `traceloop.entity.name` / `.input` / `.output`. Its llm spans carry GenAI attributes and are
 * read by that convention.
 */
export const openLlmetry: Convention = {
  name: "OpenLLMetry",
  claims: (span) => span.attributes["traceloop.span.kind"] !== undefined,
  // A task that executes a tool says so in `gen_ai.operation.name`.
  type: (span) => (span.attributes["gen_ai.operation.name"] === "execute_tool" ? "tool" : (kinds[String(span.attributes["traceloop.span.kind"])] ?? "base")),
  fields: [],
  spanName: (span) => str(span.attributes["traceloop.entity.name"]) ?? str(span.attributes["traceloop.workflow.name"]),
  input: (span) => entity(str(span.attributes["traceloop.entity.input"])),
  output: (span) => entity(str(span.attributes["traceloop.entity.output"])),
};
