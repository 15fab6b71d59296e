import type { LibraryName } from "./libraries.js";
import { autoState } from "./state.js";

/**
 * Frameworks that call a model SDK themselves and record that call in their own llm span: a
 * client they use is left to them, so that one call is one llm span (a LangChain `ChatOpenAI`
 * carries its own `openai` client, the Agents SDK its own too, LlamaIndex's `@llamaindex/openai`
 * too: its llm spans come from LlamaIndex's own events).
 */
const owners: readonly { marker: string; library: LibraryName; records?: readonly string[] }[] = [
  // LangChain's callbacks carry no embedding call: its `OpenAIEmbeddings` client is ours to record
  // (inside the `Embeddings` call's span, which that request takes over: see langchain/embeddings.ts).
  { marker: "/@langchain/", library: "langchain", records: ["Chat", "Completions", "Responses"] },
  { marker: "/@openai/agents", library: "openai-agents" },
  // LlamaIndex's events carry no embedding call: its `OpenAIEmbedding` client is ours to record.
  // LlamaIndex's OpenAIResponses emits no llm event (its chat() lacks the wrapLLMEvent that
  // OpenAI's has): its Responses calls are ours to record (test/realworld llamaindex/openai-responses-stream).
  { marker: "/@llamaindex/", library: "llamaindex", records: ["Chat", "Completions"] },
];

/**
 * The instrumented framework whose code is calling now, read from the call stack, or undefined
 * (the app calls the model itself). Asked once per client, on its first use; `resource` names
 * the resource of that first call (`Embeddings`): a framework that records only some kinds of
 * call (`records`) leaves the others to us.
 */
export function callingFramework(resource?: string): LibraryName | undefined {
  const state = autoState();
  const candidates = owners.filter((o) => state.enabled.has(o.library) && state.loaded.has(o.library) && (!o.records || resource === undefined || o.records.includes(resource)));
  if (candidates.length === 0) return undefined;
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 60;
    Error.captureStackTrace(holder, callingFramework);
  } finally {
    Error.stackTraceLimit = limit;
  }
  const stack = String(holder.stack ?? "").replaceAll("\\", "/");
  return candidates.find((o) => stack.includes(o.marker))?.library;
}
