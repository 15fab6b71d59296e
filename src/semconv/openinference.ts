import type { AttributeValue } from "@opentelemetry/api";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { type Conversation, lacksLinks, outputText, readConversation, readIndexedMessages, toolsCalled, withLinksFrom } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { indexed, indexedLists, json, str, typedValue } from "./values.js";
import { beeAiEvent, beeAiRunName } from "./beeai.js";

/** `openinference.span.kind` → span type. */
const kinds: Record<string, SpanType> = {
  LLM: "llm",
  EMBEDDING: "llm",
  CHAIN: "base",
  PROMPT: "base",
  TOOL: "tool",
  RETRIEVER: "retriever",
  RERANKER: "retriever",
  AGENT: "agent",
  GUARDRAIL: "base",
  EVALUATOR: "base",
};

/** An llm span's flattened lists, found in one pass over its attributes. */
interface LlmLists {
  input: Conversation | undefined;
  output: Conversation | undefined;
  embeddings: Record<string, AttributeValue>[];
}
const LLM_LISTS = ["llm.input_messages", "llm.output_messages", "embedding.embeddings"] as const;
/** Each read of a span (its input, output and toolsCalled all need its lists) reads them once. */
const llmListsRead = new WeakMap<FinishedSpan, LlmLists>();
function llmLists(span: FinishedSpan): LlmLists {
  let lists = llmListsRead.get(span);
  if (lists === undefined) {
    const [input, output, embeddings] = indexedLists(span.attributes, LLM_LISTS);
    lists = { input: readIndexedMessages(input!), output: readIndexedMessages(output!), embeddings: embeddings! };
    llmListsRead.set(span, lists);
  }
  return lists;
}

/** Retrieved documents' text: `retrieval.documents.N.document.content` (or reranker output). */
function documents(span: FinishedSpan): string[] {
  const a = span.attributes;
  const docs = indexed(a, "retrieval.documents");
  const list = docs.length > 0 ? docs : indexed(a, "reranker.output_documents");
  return list.map((d) => d["document.content"]).filter((c): c is string => typeof c === "string");
}

/** Embedded texts: `embedding.embeddings.N.embedding.text`. */
function embeddedTexts(span: FinishedSpan): string[] {
  const texts: string[] = [];
  for (const e of llmLists(span).embeddings) {
    const t = e["embedding.text"];
    if (typeof t === "string") texts.push(t);
  }
  return texts;
}

/**
 * OpenInference (`@arizeai/openinference-*`): `openinference.span.kind`, flattened
 * `llm.input_messages` / `llm.output_messages` with tool calls, `input.value` / `output.value`
 * by mime type, `llm.token_count.*`, `retrieval.documents`, `tool.*`, `embedding.*`.
 */
export const openInference: Convention = {
  name: "OpenInference",
  claims: (span) => span.attributes["openinference.span.kind"] !== undefined,
  type(span) {
    // BeeAI's event spans: one span per call (beeai.ts).
    const bee = beeAiEvent(span.attributes);
    if (bee !== undefined && bee.fold !== "keep") return undefined;
    return kinds[String(span.attributes["openinference.span.kind"]).toUpperCase()] ?? "base";
  },
  fields: [
    { field: "model", keys: ["llm.model_name", "embedding.model_name"], as: "string", types: ["llm"] },
    { field: "provider", keys: ["llm.provider", "llm.system"], as: "string", types: ["llm"] },
    { field: "inputTokenCount", keys: ["llm.token_count.prompt"], as: "count", types: ["llm"] },
    { field: "outputTokenCount", keys: ["llm.token_count.completion"], as: "count", types: ["llm"] },
    { field: "embedder", keys: ["embedding.model_name"], as: "string", types: ["retriever"] },
    { field: "description", keys: ["tool.description"], as: "string", types: ["tool"] },
  ],
  spanName(span, type) {
    const bee = beeAiEvent(span.attributes);
    if (type === "tool") return str(span.attributes["tool.name"]) ?? (bee && beeAiRunName(bee, "TOOL"));
    return bee && beeAiRunName(bee, String(span.attributes["openinference.span.kind"]));
  },
  input(span, type) {
    const a = span.attributes;
    if (type === "llm") {
      const flat = llmLists(span).input;
      // Flattened messages without their links (the LangChain instrumentation's): from input.value.
      const fromMessages = flat ? (lacksLinks(flat) ? withLinksFrom(flat, readConversation(typedValue(a, "input"))) : flat) : readConversation(typedValue(a, "input"));
      if (fromMessages) return fromMessages.messages as unknown as JsonValue;
      const texts = embeddedTexts(span);
      if (texts.length > 0) return texts.join("\n");
      return typedValue(a, "input");
    }
    if (type === "tool") return json(a["tool.parameters"]) ?? typedValue(a, "input");
    return typedValue(a, "input");
  },
  output(span, type) {
    const a = span.attributes;
    if (type === "llm") {
      const text = outputText(llmLists(span).output);
      if (text !== undefined) return text;
      const texts = embeddedTexts(span);
      if (texts.length > 0) return `[${texts.length} embedding(s)]`;
      return typedValue(a, "output");
    }
    if (type === "retriever") {
      const docs = documents(span);
      return docs.length > 0 ? docs : typedValue(a, "output");
    }
    return typedValue(a, "output");
  },
  extra(span, type): { [key: string]: JsonValue } | undefined {
    if (type === "llm") {
      const output = llmLists(span).output;
      const calls = output === undefined ? undefined : toolsCalled(output.toolCalls);
      return calls ? { toolsCalled: calls } : undefined;
    }
    if (type === "retriever") {
      const docs = documents(span);
      return docs.length > 0 ? { retrievalContext: docs } : undefined;
    }
    return undefined;
  },
};
