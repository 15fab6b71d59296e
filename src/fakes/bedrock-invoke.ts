import { arr, contentText, type Json, num, obj, str } from "./body.js";
import { converseContent, converseReply, outputTokensOf, readConverse } from "./bedrock-converse.js";
import { estimateTokens, type FakeTool, type FakeToolChoice, type FakeTurn, fakeTurn, pieces } from "./model.js";

/**
 * InvokeModel bodies per model family, as the Bedrock user guide's "Inference request parameters
 * and response fields for foundation models" gives them: what a request asks of the fake model,
 * the reply body, and the stream's chunks (each the JSON the service base64-encodes into a
 * `chunk` event's `bytes`; the last one also carries `amazon-bedrock-invocationMetrics`).
 */

/** What the fake reads of a request body: the model's turn and input tokens, or why it is invalid. */
export type InvokeRead = { turn: FakeTurn; inputTokens: number } | { invalid: string };

/** One model family's InvokeModel body format. */
export interface InvokeFamily {
  /** Which model ids speak it (the vendor part of `anthropic.claude-…`, `us.amazon.nova-…`). */
  matches(modelId: string): boolean;
  read(body: Json): InvokeRead;
  reply(turn: FakeTurn, inputTokens: number, modelId: string, nextId: (prefix: string) => string): Json;
  /** The streamed chunks of `reply`, in order. */
  chunks(turn: FakeTurn, inputTokens: number, reply: Json): Json[];
}

/** A model id's base: an ARN's last segment without its cross-region prefix (`us.`, `eu.`, `global.`…). */
export function baseModelId(modelId: string): string {
  const last = modelId.includes("/") ? modelId.slice(modelId.lastIndexOf("/") + 1) : modelId;
  return last.replace(/^(?:us-gov|us|eu|apac|ap|ca|jp|au|global)\./, "");
}

const malformed = (detail: string) => ({ invalid: `Malformed input request: ${detail}, please reformat your input and try again.` });

/** Anthropic's `tool_choice` on Bedrock: `{type: "auto" | "any" | "none" | "tool"}`. */
function anthropicChoice(choice: unknown): FakeToolChoice {
  const c = obj(choice);
  if (c.type === "none") return { mode: "none" };
  if (c.type === "any") return { mode: "required" };
  if (c.type === "tool" && typeof c.name === "string") return { mode: "named", name: c.name };
  return { mode: "auto" };
}

/** Claude's model name in its replies: the id without vendor, region and version suffix (`claude-sonnet-4-5-20250929`). */
const claudeName = (modelId: string) => baseModelId(modelId).replace(/^anthropic\./, "").replace(/-v\d+(?::\d+)?$/, "");

/** Anthropic Claude: the Messages API body with `anthropic_version: "bedrock-2023-05-31"` and no `model`. */
const anthropic: InvokeFamily = {
  matches: (id) => baseModelId(id).startsWith("anthropic."),
  read(body) {
    if (body.model !== undefined) return malformed("#: extraneous key [model] is not permitted");
    if (str(body.anthropic_version) === undefined) return malformed("#: required key [anthropic_version] not found");
    if (num(body.max_tokens) === undefined) return malformed("#: required key [max_tokens] not found");
    if (!Array.isArray(body.messages)) return malformed("#: required key [messages] not found");
    const msgs = arr(body.messages).map(obj);
    const lastUser = [...msgs].reverse().find((m) => m.role === "user");
    const last = msgs.at(-1);
    const tools: FakeTool[] = arr(body.tools)
      .map(obj)
      .filter((t) => t.input_schema !== undefined)
      .map((t) => ({ name: str(t.name) ?? "", schema: t.input_schema }));
    const userBlocks = arr(lastUser?.content);
    const turn = fakeTurn({
      tools,
      choice: anthropicChoice(body.tool_choice),
      lastUserText: contentText(userBlocks.length > 0 ? userBlocks.filter((b) => obj(b).type === "text") : lastUser?.content),
      afterToolResults: last?.role === "user" && arr(last.content).some((b) => obj(b).type === "tool_result"),
      parallel: obj(body.tool_choice).disable_parallel_tool_use !== true,
      maxTokens: num(body.max_tokens)!,
      stop: arr(body.stop_sequences).filter((s): s is string => typeof s === "string"),
    });
    return { turn, inputTokens: Math.max(1, estimateTokens(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]))) };
  },
  reply(turn, inputTokens, modelId, nextId) {
    const content =
      turn.kind === "tools" ? turn.calls.map((c) => ({ type: "tool_use", id: nextId("toolu_bdrk_fake"), name: c.name, input: JSON.parse(c.arguments) as unknown })) : [{ type: "text", text: turn.text }];
    const stopReason = turn.kind === "tools" ? "tool_use" : turn.stop === "max_tokens" ? "max_tokens" : turn.stop === "stop_sequence" ? "stop_sequence" : "end_turn";
    return {
      id: nextId("msg_bdrk_fake"),
      type: "message",
      role: "assistant",
      model: claudeName(modelId),
      content,
      stop_reason: stopReason,
      stop_sequence: turn.kind === "text" ? (turn.stopSequence ?? null) : null,
      usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokensOf(turn) },
    };
  },
  chunks(turn, _inputTokens, reply) {
    const usage = obj(reply.usage);
    const out: Json[] = [{ type: "message_start", message: { ...reply, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }];
    arr(reply.content)
      .map(obj)
      .forEach((block, index) => {
        if (block.type === "tool_use") {
          out.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
          for (const p of pieces(JSON.stringify(block.input), 8)) out.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } });
        } else {
          out.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
          for (const text of turn.kind === "text" ? turn.pieces : []) if (text !== "") out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
        }
        out.push({ type: "content_block_stop", index });
      });
    out.push({ type: "message_delta", delta: { stop_reason: reply.stop_reason, stop_sequence: reply.stop_sequence }, usage: { output_tokens: usage.output_tokens } });
    out.push({ type: "message_stop" });
    return out;
  },
};

/** Amazon Nova: the Converse shapes (`messages-v1`); its usage names its cache tokens `…TokenCount`. */
const nova: InvokeFamily = {
  matches: (id) => baseModelId(id).startsWith("amazon.nova"),
  read: readConverse,
  reply(turn, inputTokens, _modelId, nextId) {
    const { metrics: _, usage, ...rest } = converseReply(turn, inputTokens, converseContent(turn, nextId));
    return { ...rest, usage: { ...obj(usage), cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 } };
  },
  chunks(turn, _inputTokens, reply) {
    const out: Json[] = [{ messageStart: { role: "assistant" } }];
    arr(obj(obj(reply.output).message).content)
      .map(obj)
      .forEach((block, contentBlockIndex) => {
        const use = obj(block.toolUse);
        if (block.toolUse !== undefined) {
          out.push({ contentBlockStart: { start: { toolUse: { toolUseId: use.toolUseId, name: use.name } }, contentBlockIndex } });
          out.push({ contentBlockDelta: { delta: { toolUse: { input: JSON.stringify(use.input) } }, contentBlockIndex } });
        } else {
          for (const text of turn.kind === "text" ? turn.pieces : []) out.push({ contentBlockDelta: { delta: { text }, contentBlockIndex } });
        }
        out.push({ contentBlockStop: { contentBlockIndex } });
      });
    out.push({ messageStop: { stopReason: reply.stopReason } });
    const usage = obj(reply.usage);
    out.push({ metadata: { usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, metrics: {}, trace: {} } });
    return out;
  },
};

/** A text-only family's turn: the fake's text, cut at `maxTokens` pieces and the stop sequences. */
function textTurn(prompt: string, maxTokens: number | undefined, stop: unknown): InvokeRead {
  const turn = fakeTurn({ tools: [], choice: { mode: "none" }, lastUserText: prompt, afterToolResults: false, parallel: false, ...(maxTokens !== undefined ? { maxTokens } : {}), stop: arr(stop).filter((s): s is string => typeof s === "string") });
  return { turn, inputTokens: Math.max(1, estimateTokens(prompt)) };
}

const textPieces = (turn: FakeTurn) => (turn.kind === "text" ? turn.pieces : [""]);
const fullText = (turn: FakeTurn) => (turn.kind === "text" ? turn.text : "");

/** Amazon Titan Text: `inputText` and `textGenerationConfig`; `results[].outputText`, token counts per side. */
const titan: InvokeFamily = {
  matches: (id) => baseModelId(id).startsWith("amazon.titan-text"),
  read(body) {
    const prompt = str(body.inputText);
    if (prompt === undefined) return malformed("#: required key [inputText] not found");
    const config = obj(body.textGenerationConfig);
    return textTurn(prompt, num(config.maxTokenCount), config.stopSequences);
  },
  reply(turn, inputTokens) {
    const reason = turn.kind === "text" && turn.stop === "max_tokens" ? "LENGTH" : turn.kind === "text" && turn.stop === "stop_sequence" ? "STOP_CRITERIA_MET" : "FINISH";
    return { inputTextTokenCount: inputTokens, results: [{ tokenCount: outputTokensOf(turn), outputText: fullText(turn), completionReason: reason }] };
  },
  chunks(turn, inputTokens, reply) {
    const parts = textPieces(turn);
    const reason = obj(arr(reply.results)[0]).completionReason;
    return parts.map((outputText, i) => ({ outputText, index: 0, totalOutputTextTokenCount: i + 1, completionReason: i === parts.length - 1 ? reason : null, inputTextTokenCount: i === 0 ? inputTokens : null }));
  },
};

/** Meta Llama: `prompt` and `max_gen_len`; `generation` with `prompt_token_count` and `generation_token_count`. */
const llama: InvokeFamily = {
  matches: (id) => baseModelId(id).startsWith("meta.llama"),
  read(body) {
    const prompt = str(body.prompt);
    if (prompt === undefined) return malformed("#: required key [prompt] not found");
    return textTurn(prompt, num(body.max_gen_len), undefined);
  },
  reply(turn, inputTokens) {
    return { generation: fullText(turn), prompt_token_count: inputTokens, generation_token_count: outputTokensOf(turn), stop_reason: turn.kind === "text" && turn.stop === "max_tokens" ? "length" : "stop" };
  },
  chunks(turn, inputTokens, reply) {
    const parts = textPieces(turn);
    return parts.map((generation, i) => ({ generation, prompt_token_count: i === 0 ? inputTokens : null, generation_token_count: i + 1, stop_reason: i === parts.length - 1 ? reply.stop_reason : null }));
  },
};

/** The InvokeModel families the fake knows, tried in order. */
export const INVOKE_FAMILIES: readonly InvokeFamily[] = [anthropic, nova, titan, llama];

/** Which body shape each family's requests have, for a model id that names no vendor. */
const BODY_SHAPES: readonly [InvokeFamily, (body: Json) => boolean][] = [
  [anthropic, (b) => b.anthropic_version !== undefined],
  [nova, (b) => b.schemaVersion === "messages-v1"],
  [titan, (b) => b.inputText !== undefined],
  [llama, (b) => b.prompt !== undefined],
];

/**
 * The family of a model id, if the fake knows it; an application inference profile's opaque id
 * (no vendor in it) stands for the model of the body's shape, as the profile would resolve it.
 */
export function invokeFamilyOf(modelId: string, body: Json): InvokeFamily | undefined {
  const known = INVOKE_FAMILIES.find((f) => f.matches(modelId));
  if (known || baseModelId(modelId).includes(".")) return known;
  return BODY_SHAPES.find(([, shape]) => shape(body))?.[0];
}

/** The usage a reply reports, as the `x-amzn-bedrock-*-token-count` headers and the invocation metrics give it. */
export function invokeTokens(turn: FakeTurn, inputTokens: number): { inputTokenCount: number; outputTokenCount: number } {
  return { inputTokenCount: inputTokens, outputTokenCount: outputTokensOf(turn) };
}
