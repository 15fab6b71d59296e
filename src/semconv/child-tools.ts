import type { Attributes } from "@opentelemetry/api";
import type { JsonValue } from "../spans/json-value.js";
import { outputText, readConversation, toolsCalled } from "./messages.js";
import type { FinishedSpan } from "./types.js";
import { json, str } from "./values.js";

/**
 * The tool call a GenAI tool span (`gen_ai.tool.name`) ran, as an OpenAI-style `tool_calls`
 * entry: its name, call id, and arguments from `gen_ai.tool.call.arguments`, else from the one
 * tool message of its `gen_ai.input.messages` (TanStack AI's `execute_tool` spans).
 */
export function toolCallOf(a: Attributes): JsonValue | undefined {
  const name = str(a["gen_ai.tool.name"]);
  if (name === undefined) return undefined;
  let args = a["gen_ai.tool.call.arguments"];
  if (args === undefined) {
    const sent = json(a["gen_ai.input.messages"]);
    const only = Array.isArray(sent) && sent.length === 1 ? sent[0] : undefined;
    if (only !== null && typeof only === "object" && !Array.isArray(only) && only?.role === "tool") args = typeof only.content === "string" ? only.content : JSON.stringify(only.content);
  }
  const id = str(a["gen_ai.tool.call.id"]);
  return { ...(id !== undefined ? { id } : {}), type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) } };
}

/**
 * An llm span that recorded neither its reply nor the tools it called, with the tool spans that
 * ran under it (TanStack AI's iteration span of a model request that answered with tool calls:
 * it records only `finish_reasons: tool_calls`, its `execute_tool` spans are its children): its
 * output and `toolsCalled` are those calls. Undefined when it ran none.
 */
export function childToolCalls(span: FinishedSpan): { output: string; toolsCalled: JsonValue } | undefined {
  const calls = span.childToolCalls;
  if (calls === undefined || calls.length === 0) return undefined;
  const reply = readConversation([{ role: "assistant", content: "", tool_calls: [...calls] }]);
  const output = outputText(reply);
  const called = toolsCalled(reply?.toolCalls ?? []);
  return output === undefined || called === undefined ? undefined : { output, toolsCalled: called };
}
