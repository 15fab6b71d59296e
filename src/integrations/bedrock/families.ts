import type { ReadableMessage } from "../../semconv/messages.js";
import { isObject } from "../kit/model-call.js";
import { converseFolder, converseInput, converseReply } from "./converse.js";
import { EMBED_FAMILIES } from "./embed-families.js";
import { anyText, idOf, type Part, type PartsMessage, readableMessages, systemMessage } from "./messages.js";
import type { Reply, StreamFolder } from "./reply.js";

/**
 * InvokeModel body formats per model family, as data (Bedrock user guide, "Inference request
 * parameters and response fields for foundation models"): how a request body reads as llm input,
 * a reply body as a {@link Reply}, and the stream's chunks (each chunk's decoded `bytes`).
 */
export interface InvokeFamily {
  /** Recorded as the `modelFamily` metadata. */
  name: string;
  /** The model id's vendor prefix (after any cross-region prefix such as `us.`). */
  prefix: string;
  /** Whether a body with no recognised model id (an application inference profile ARN) is in this format. */
  looksLike(body: Record<string, unknown>): boolean;
  input(body: Record<string, unknown>): ReadableMessage[];
  reply(body: unknown): Reply;
  folder(): StreamFolder;
}

type Obj = Record<string, unknown>;
const objOf = (v: unknown): Obj => (isObject(v) ? v : {});

/** One Anthropic content block as a part. */
function anthropicPart(block: unknown): Part | undefined {
  if (typeof block === "string") return { kind: "text", text: block };
  if (!isObject(block)) return undefined;
  switch (block.type) {
    case "text":
      return { kind: "text", text: anyText(block.text) };
    case "tool_use":
      return { kind: "call", id: idOf(block.id), name: typeof block.name === "string" ? block.name : "tool", input: block.input };
    case "tool_result": {
      const content = block.content;
      const text = Array.isArray(content) ? anthropicParts(content).map((p) => (p.kind === "text" ? p.text : p.kind === "other" ? p.label : "")).join("\n") : anyText(content);
      return { kind: "result", id: idOf(block.tool_use_id), text };
    }
    case "image":
    case "document":
      return { kind: "other", label: `[${block.type}]` };
    default:
      return undefined;
  }
}

function anthropicParts(content: unknown): Part[] {
  if (typeof content === "string") return [{ kind: "text", text: content }];
  return Array.isArray(content) ? content.map(anthropicPart).filter((p): p is Part => p !== undefined) : [];
}

/** Anthropic Claude: the Messages API with `anthropic_version: "bedrock-2023-05-31"`. */
const anthropic: InvokeFamily = {
  name: "Anthropic",
  prefix: "anthropic.",
  looksLike: (body) => typeof body.anthropic_version === "string",
  input(body) {
    const messages: PartsMessage[] = [...systemMessage(body.system)];
    if (Array.isArray(body.messages)) for (const m of body.messages) if (isObject(m)) messages.push({ role: typeof m.role === "string" ? m.role : "user", parts: anthropicParts(m.content) });
    return readableMessages(messages);
  },
  reply(body) {
    const r = objOf(body);
    const usage = objOf(r.usage);
    return {
      parts: anthropicParts(r.content),
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      metadata: { stopReason: r.stop_reason, responseModel: r.model, cacheCreationInputTokens: usage.cache_creation_input_tokens, cacheReadInputTokens: usage.cache_read_input_tokens },
    };
  },
  folder() {
    const blocks: { type?: unknown; id?: string; name?: string; text: string; json: string }[] = [];
    let usage: Obj = {};
    let stopReason: unknown;
    let model: unknown;
    let stopped = false;
    return {
      fold(event) {
        const e = objOf(event);
        if (e.type === "message_start") {
          const message = objOf(e.message);
          model = message.model;
          usage = { ...objOf(message.usage) };
        } else if (e.type === "content_block_start") {
          const b = objOf(e.content_block);
          blocks[Number(e.index) || 0] = { type: b.type, id: idOf(b.id), name: typeof b.name === "string" ? b.name : undefined, text: typeof b.text === "string" ? b.text : "", json: "" };
        } else if (e.type === "content_block_delta") {
          const slot = (blocks[Number(e.index) || 0] ??= { text: "", json: "" });
          const d = objOf(e.delta);
          if (typeof d.text === "string") slot.text += d.text;
          if (typeof d.partial_json === "string") slot.json += d.partial_json;
        } else if (e.type === "message_delta") {
          for (const [k, v] of Object.entries(objOf(e.usage))) if (v !== null && v !== undefined) usage[k] = v;
          if (objOf(e.delta).stop_reason) stopReason = objOf(e.delta).stop_reason;
        } else if (e.type === "message_stop") stopped = true;
      },
      content: (event) => objOf(event).type === "content_block_delta",
      complete: () => stopped,
      reply() {
        const content = blocks.filter(Boolean).map((b) => (b.type === "tool_use" ? { type: "tool_use", id: b.id, name: b.name, input: b.json } : { type: "text", text: b.text }));
        return anthropic.reply({ model, content, usage, stop_reason: stopReason });
      },
    };
  },
};

/** Amazon Nova: the Converse shapes (`schemaVersion: "messages-v1"`). */
const nova: InvokeFamily = {
  name: "Amazon Nova",
  prefix: "amazon.nova",
  looksLike: (body) => body.schemaVersion === "messages-v1" || (Array.isArray(body.messages) && isObject(body.inferenceConfig)),
  input: converseInput,
  reply: converseReply,
  folder: converseFolder,
};

/** A text-completion family (one prompt in, text out): where its request, reply and chunks keep what. */
interface TextFormat {
  name: string;
  prefix: string;
  prompt: string;
  /** The reply's text, input and output tokens and stop reason. */
  read(body: Obj): { text: unknown; inputTokens: unknown; outputTokens: unknown; stopReason: unknown };
}

/** A family from a text-completion format: the prompt as one user message; chunks read like replies, text appended. */
function textFamily(format: TextFormat): InvokeFamily {
  const reply = (read: ReturnType<TextFormat["read"]>): Reply => ({
    parts: [{ kind: "text", text: typeof read.text === "string" ? read.text : "" }],
    inputTokens: read.inputTokens,
    outputTokens: read.outputTokens,
    metadata: { stopReason: read.stopReason },
  });
  return {
    name: format.name,
    prefix: format.prefix,
    looksLike: (body) => typeof body[format.prompt] === "string",
    input: (body) => [{ role: "user", content: anyText(body[format.prompt]) }],
    reply: (body) => reply(format.read(objOf(body))),
    folder() {
      let text = "";
      let last: ReturnType<TextFormat["read"]> = { text: "", inputTokens: undefined, outputTokens: undefined, stopReason: undefined };
      return {
        fold(chunk) {
          const read = format.read(objOf(chunk));
          if (typeof read.text === "string") text += read.text;
          last = { text, inputTokens: read.inputTokens ?? last.inputTokens, outputTokens: read.outputTokens ?? last.outputTokens, stopReason: read.stopReason ?? last.stopReason };
        },
        content: (chunk) => {
          const t = format.read(objOf(chunk)).text;
          return typeof t === "string" && t !== "";
        },
        complete: () => last.stopReason !== undefined && last.stopReason !== null,
        reply: () => reply(last),
      };
    },
  };
}

const nullish = (v: unknown) => (v === null ? undefined : v);

/** Amazon Titan Text: `inputText`; replies `results[0].outputText`, chunks `outputText` with running token counts. */
const titan = textFamily({
  name: "Amazon Titan",
  prefix: "amazon.titan-text",
  prompt: "inputText",
  read(body) {
    const result = Array.isArray(body.results) ? objOf(body.results[0]) : body;
    return {
      text: result.outputText,
      inputTokens: nullish(body.inputTextTokenCount),
      outputTokens: nullish(result.tokenCount ?? body.totalOutputTextTokenCount),
      stopReason: nullish(result.completionReason),
    };
  },
});

/** Meta Llama: `prompt`; replies and chunks `generation` with `prompt_token_count` and `generation_token_count`. */
const llama = textFamily({
  name: "Meta Llama",
  prefix: "meta.llama",
  prompt: "prompt",
  read: (body) => ({ text: body.generation, inputTokens: nullish(body.prompt_token_count), outputTokens: nullish(body.generation_token_count), stopReason: nullish(body.stop_reason) }),
});

/** The families, tried in order (the embedding models' before Titan Text: their bodies' shapes are the more specific). */
export const INVOKE_FAMILIES: readonly InvokeFamily[] = [anthropic, nova, ...EMBED_FAMILIES, titan, llama];

/** A model id's base: an ARN's last segment, without a cross-region inference prefix (`us.`, `eu.`, `global.`...). */
export function baseModelId(modelId: string): string {
  const last = modelId.includes("/") ? modelId.slice(modelId.lastIndexOf("/") + 1) : modelId;
  return last.replace(/^(?:us-gov|us|eu|apac|ap|ca|jp|au|global)\./, "");
}

/**
 * The family of a call: by its model id's vendor; for an id that names no vendor (an application
 * inference profile's opaque id), by its body's shape; undefined when neither says (a vendor
 * whose format is not in the table: Mistral's `prompt` body is no Llama body).
 */
export function familyOf(modelId: unknown, body: Record<string, unknown>): InvokeFamily | undefined {
  const base = typeof modelId === "string" ? baseModelId(modelId) : "";
  const byId = INVOKE_FAMILIES.find((f) => base.startsWith(f.prefix));
  if (byId || base.includes(".")) return byId;
  return INVOKE_FAMILIES.find((f) => f.looksLike(body));
}
