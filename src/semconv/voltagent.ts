import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { readConversation } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { json, str } from "./values.js";

/**
 * VoltAgent's `span.type` (a child of an agent's span) → span type; types not listed (memory,
 * vector, middleware ...) are left out, their children re-parented. A span with no `span.type`
 * is an entity's own span: `entity.type` says which.
 */
const spanTypes: Record<string, SpanType> = {
  llm: "llm",
  embedding: "llm",
  tool: "tool",
  agent: "agent",
  retriever: "retriever",
  guardrail: "base",
  summary: "base",
};
const entityTypes: Record<string, SpanType> = { agent: "agent", workflow: "base" };

/**
 * A VoltAgent llm span is one AI SDK call (`llm:generateText`, `llm:streamText`), all its steps.
 * Where the AI SDK's own telemetry records that call under it (zero-code turns it on: an
 * `ai.*` operation among its `childOperations`, bridge/foreign-span.ts), the AI SDK's spans have
 * one llm span per model request, and VoltAgent's is a base span around them (tokens once).
 */
function kind(span: FinishedSpan): SpanType | undefined {
  const a = span.attributes;
  const spanType = str(a["span.type"]);
  if (spanType === "llm" && span.childOperations?.some((op) => op.startsWith("ai."))) return "base";
  if (spanType !== undefined) return spanTypes[spanType];
  const entity = str(a["entity.type"]);
  return entity === undefined ? undefined : entityTypes[entity];
}

/**
 * VoltAgent (its own `entity.*`, `span.type`, `llm.*`, `usage.*` attributes:
 * packages/core/src/agent/open-telemetry/trace-context.ts, packages/core/src/agent/agent.ts).
 * Its llm spans record the messages sent but not the reply: their output stays empty.
 */
export const voltAgent: Convention = {
  name: "VoltAgent",
  claims: (span) => span.attributes["entity.type"] !== undefined && span.attributes["operation.id"] !== undefined,
  type: kind,
  fields: [
    { field: "model", keys: ["llm.model"], as: "string", types: ["llm"] },
    { field: "provider", keys: ["llm.provider"], as: "string", types: ["llm"] },
    { field: "inputTokenCount", keys: ["llm.usage.prompt_tokens"], as: "count", types: ["llm"] },
    { field: "outputTokenCount", keys: ["llm.usage.completion_tokens"], as: "count", types: ["llm"] },
    { field: "description", keys: ["tool.description"], as: "string", types: ["tool"] },
  ],
  spanName(span, type) {
    const a = span.attributes;
    if (type === "tool") return str(a["tool.name"]);
    if (type === "agent") return str(a["subagent.name"]) ?? str(a["entity.name"]);
    return undefined;
  },
  input(span, type) {
    const a = span.attributes;
    if (type === "llm") {
      const sent = readConversation(json(a["llm.messages"]));
      if (sent) return sent.messages as unknown as JsonValue;
    }
    return json(a.input);
  },
  output: (span) => json(span.attributes.output),
};
