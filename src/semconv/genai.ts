import { aiSdkOtelError } from "./ai-sdk-otel.js";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { agentAnswer, agentTools, inputConversation, outputConversation, toolArguments, toolResult } from "./genai-content.js";
import { outputText, toolsCalled } from "./messages.js";
import { genAiProvider } from "./providers.js";
import type { Convention, FinishedSpan } from "./types.js";
import { str } from "./values.js";

/** `gen_ai.operation.name` → span type (OTel GenAI semantic conventions). */
const operationTypes: Record<string, SpanType> = {
  chat: "llm",
  text_completion: "llm",
  generate_content: "llm",
  embeddings: "llm",
  execute_tool: "tool",
  invoke_agent: "agent",
  create_agent: "agent",
  workflow: "base",
  task: "base",
};

/** Whether a span's children include model calls (by their GenAI operation). */
const wrapsModelCalls = (span: FinishedSpan): boolean => span.childOperations?.some((op) => operationTypes[op] === "llm") === true;

/**
 * OpenTelemetry GenAI semantic conventions, current (`gen_ai.input.messages` with typed parts,
 * `gen_ai.provider.name`) and legacy (`gen_ai.prompt.N.*`, `gen_ai.completion.N.*`,
 * `gen_ai.system`), with content from span events or correlated log records.
 */
export const genAi: Convention = {
  name: "OpenTelemetry GenAI",
  claims: (span) => Object.keys(span.attributes).some((k) => k.startsWith("gen_ai.")),
  type(span) {
    const a = span.attributes;
    const op = str(a["gen_ai.operation.name"]);
    // An operation around model calls of its own kind (AI SDK 7's `embed` around its
    // `embeddings` calls, which carry the tokens) is not a second model call.
    if (op && operationTypes[op] === "llm" && span.childOperations?.includes(op)) return "base";
    if (op && operationTypes[op]) return operationTypes[op];
    if (a["gen_ai.tool.name"] !== undefined) return "tool";
    // A span with a model but no operation is a model call unless it wraps model calls (TanStack
    // AI's root `chat` span around its iterations, with their tokens summed: counted once).
    if (a["gen_ai.request.model"] !== undefined || a["gen_ai.response.model"] !== undefined) return wrapsModelCalls(span) ? "base" : "llm";
    return "base";
  },
  fields: [
    { field: "model", keys: ["gen_ai.response.model", "gen_ai.request.model"], as: "string", types: ["llm"] },
    { field: "inputTokenCount", keys: ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"], as: "count", types: ["llm"] },
    { field: "outputTokenCount", keys: ["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"], as: "count", types: ["llm"] },
    { field: "description", keys: ["gen_ai.tool.description"], as: "string", types: ["tool"] },
  ],
  spanName(span, type) {
    const a = span.attributes;
    if (type === "tool") return str(a["gen_ai.tool.name"]);
    if (type === "agent") return str(a["gen_ai.agent.name"]);
    return undefined;
  },
  input(span, type) {
    if (type === "tool") return toolArguments(span);
    if (type === "llm" || type === "agent") return inputConversation(span)?.messages as unknown as JsonValue;
    return undefined;
  },
  output(span, type) {
    if (type === "tool") return toolResult(span);
    if (type === "agent") return agentAnswer(span);
    if (type === "llm") return outputText(outputConversation(span));
    return undefined;
  },
  extra(span, type) {
    if (type === "agent") {
      const tools = agentTools(span);
      return tools ? { availableTools: tools } : undefined;
    }
    if (type !== "llm") return undefined;
    const out: { [key: string]: JsonValue } = {};
    const provider = genAiProvider(span.attributes["gen_ai.provider.name"], span.attributes["gen_ai.system"]);
    if (provider !== undefined) out.provider = provider;
    const calls = toolsCalled(outputConversation(span)?.toolCalls ?? []);
    if (calls) out.toolsCalled = calls;
    return out;
  },
  error: aiSdkOtelError,
};
