import type { ReadableMessage } from "../../semconv/messages.js";
import { isObject } from "../kit/model-call.js";
import { anyText } from "./messages.js";
import type { Reply, StreamFolder } from "./reply.js";

/**
 * InvokeModel bodies of the embedding models (Bedrock user guide, "Amazon Titan Embeddings" and
 * "Cohere Embed"): the texts as one user message, `[n embedding(s)]` as the reply, and the input
 * tokens the body reports (Titan's `inputTextTokenCount`; Cohere's body reports none on Bedrock,
 * `meta.billed_units.input_tokens` is read when there). One request is one llm span, as for any
 * model request; these models do not stream.
 */

/** An `InvokeFamily` of `families.ts` (the same shape, named here so that the two files import each other not). */
interface EmbedFamily {
  name: string;
  prefix: string;
  looksLike(body: Record<string, unknown>): boolean;
  input(body: Record<string, unknown>): ReadableMessage[];
  reply(body: unknown): Reply;
  folder(): StreamFolder;
}

type Obj = Record<string, unknown>;
const objOf = (v: unknown): Obj => (isObject(v) ? v : {});

const embedReply = (count: number, inputTokens: unknown): Reply => ({ parts: [{ kind: "text", text: `[${count} embedding(s)]` }], inputTokens, metadata: {} });

/** Embedding models send no stream: a folder that reads nothing, for the table's shape. */
const noStream = (): StreamFolder => ({ fold: () => undefined, content: () => false, complete: () => true, reply: () => embedReply(0, undefined) });

/** Amazon Titan Embeddings: `{inputText, dimensions?, normalize?}`; replies `{embedding, inputTextTokenCount}`. */
const titanEmbed: EmbedFamily = {
  name: "Amazon Titan Embeddings",
  prefix: "amazon.titan-embed",
  // An inputText body without text-generation settings, with an embedding option.
  looksLike: (body) => typeof body.inputText === "string" && body.textGenerationConfig === undefined && (body.dimensions !== undefined || body.normalize !== undefined || body.embeddingTypes !== undefined),
  input: (body) => [{ role: "user", content: anyText(body.inputText) }],
  reply(body) {
    const r = objOf(body);
    return embedReply(Array.isArray(r.embedding) || isObject(r.embeddingsByType) ? 1 : 0, r.inputTextTokenCount);
  },
  folder: noStream,
};

/** Cohere Embed: `{texts, input_type, truncate?, embedding_types?}`; replies `{embeddings, id, texts, response_type}`. */
const cohereEmbed: EmbedFamily = {
  name: "Cohere Embed",
  prefix: "cohere.embed",
  looksLike: (body) => Array.isArray(body.texts) && typeof body.input_type === "string",
  input: (body) => (Array.isArray(body.texts) ? [{ role: "user", content: body.texts.map(anyText).join("\n") }] : []),
  reply(body) {
    const r = objOf(body);
    // `embeddings` is a list (floats), or an object of lists per requested type (`embedding_types`).
    const e = r.embeddings;
    const lists = Array.isArray(e) ? [e] : isObject(e) ? Object.values(e).filter(Array.isArray) : [];
    const count = Array.isArray(r.texts) ? r.texts.length : (lists[0]?.length ?? 0);
    return embedReply(count, objOf(objOf(r.meta).billed_units).input_tokens);
  },
  folder: noStream,
};

/** The embedding families, tried after the text ones. */
export const EMBED_FAMILIES: readonly EmbedFamily[] = [titanEmbed, cohereEmbed];

/** Whether `family` is one of the embedding families. */
export const isEmbedFamily = (family: { name: string }): boolean => EMBED_FAMILIES.some((f) => f.name === family.name);
