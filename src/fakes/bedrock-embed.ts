import { randomUUID } from "node:crypto";
import { arr, type Json, num, obj, str } from "./body.js";
import { baseModelId } from "./bedrock-invoke.js";
import { fakeEmbedding } from "./embedding.js";
import { estimateTokens } from "./model.js";

/**
 * InvokeModel bodies of the embedding models, as the Bedrock user guide gives them ("Amazon Titan
 * Embeddings", "Cohere Embed"): a request's texts and the reply body, or why the body is invalid.
 * Embeddings are the fake's deterministic vectors (`fakeEmbedding`); input tokens are each text's
 * size / 4 (also sent as the `x-amzn-bedrock-input-token-count` header; output tokens 0).
 */
export type EmbedReply = { body: Json; inputTokens: number } | { invalid: string };

const malformed = (detail: string) => ({ invalid: `Malformed input request: ${detail}, please reformat your input and try again.` });

/**
 * Amazon Titan Text Embeddings: `{inputText, dimensions?, normalize?}` (v2: 256, 512 or 1024
 * dimensions, default 1024; v1: 1536) → `{embedding, inputTextTokenCount}`.
 */
function titan(modelId: string, body: Json): EmbedReply {
  const text = str(body.inputText);
  if (text === undefined) return malformed("#: required key [inputText] not found");
  const v1 = baseModelId(modelId).startsWith("amazon.titan-embed-text-v1");
  const dims = Math.floor(num(body.dimensions) ?? (v1 ? 1536 : 1024));
  if (!v1 && ![256, 512, 1024].includes(dims)) return malformed(`#/dimensions: ${dims} is not a valid enum value`);
  const inputTokens = Math.max(1, estimateTokens(text));
  return { body: { embedding: fakeEmbedding(text, dims), inputTextTokenCount: inputTokens }, inputTokens };
}

/**
 * Cohere Embed (v3): `{texts, input_type, truncate?, embedding_types?}` → `{id, texts,
 * embeddings, response_type}`: `embeddings_floats` (a list per text), or with `embedding_types`
 * `embeddings_by_type` (`{float: [...]}`; only `float` is answered). 1024 dimensions.
 */
function cohere(_modelId: string, body: Json): EmbedReply {
  const texts = arr(body.texts).filter((t): t is string => typeof t === "string");
  if (!Array.isArray(body.texts) || texts.length === 0) return malformed("#: required key [texts] not found");
  if (str(body.input_type) === undefined) return malformed("#: required key [input_type] not found");
  const vectors = texts.map((t) => fakeEmbedding(t, 1024));
  const byType = arr(body.embedding_types).length > 0;
  const inputTokens = texts.reduce((s, t) => s + Math.max(1, estimateTokens(t)), 0);
  return {
    body: { id: randomUUID(), texts, embeddings: byType ? { float: vectors } : vectors, response_type: byType ? "embeddings_by_type" : "embeddings_floats" },
    inputTokens,
  };
}

/** The embedding models the fake knows, by the model id's vendor and family. */
const EMBED_MODELS: readonly [string, (modelId: string, body: Json) => EmbedReply][] = [
  ["amazon.titan-embed-text", titan],
  ["cohere.embed", cohere],
];

/** The reply of an embedding model's InvokeModel, or undefined when `modelId` names none. */
export function embedReply(modelId: string, body: Json): EmbedReply | undefined {
  const base = baseModelId(modelId);
  const found = EMBED_MODELS.find(([prefix]) => base.startsWith(prefix));
  return found ? found[1](modelId, obj(body)) : undefined;
}
