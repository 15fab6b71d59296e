import { arr, type Json, num, obj, str } from "./body.js";
import { type EventStreamMessage, jsonEventMessage } from "./eventstream.js";
import { estimateTokens, type FakeTool, type FakeToolChoice, type FakeTurn, fakeTurn, pieces } from "./model.js";

/**
 * The Converse API of Bedrock Runtime as the fake speaks it (API reference "Converse" and
 * "ConverseStream"): a request of `messages` (content blocks `text`, `toolUse`, `toolResult`),
 * `system`, `inferenceConfig` and `toolConfig`; a reply of `output.message`, `stopReason`,
 * `usage` and `metrics`. Amazon Nova's InvokeModel body has the same shape, so it is read here too.
 */

/** What a Converse-shaped request asks: the fake model's turn, or why it is invalid. */
export type ConverseRead = { turn: FakeTurn; inputTokens: number } | { invalid: string };

/** `toolConfig.toolChoice`: `{auto: {}}`, `{any: {}}` or `{tool: {name}}`. */
function choiceOf(choice: unknown): FakeToolChoice {
  const c = obj(choice);
  if (c.any !== undefined) return { mode: "required" };
  const named = str(obj(c.tool).name);
  if (named !== undefined) return { mode: "named", name: named };
  return { mode: "auto" };
}

const textOf = (content: unknown) =>
  arr(content)
    .map((b) => str(obj(b).text) ?? "")
    .join("");

/**
 * Reads a Converse request (or a Nova body), checking what the service checks: a message list
 * that starts with a user turn, a `toolConfig` whenever tool blocks appear, and every
 * `toolResult` answering a `toolUse` of the message before it.
 */
export function readConverse(body: Json): ConverseRead {
  if (!Array.isArray(body.messages)) return { invalid: "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null" };
  const messages = arr(body.messages).map(obj);
  if (messages[0]?.role !== "user") return { invalid: "A conversation must start with a user message. Try again with a conversation that starts with a user message." };
  const toolConfig = obj(body.toolConfig);
  const blocks = messages.flatMap((m) => arr(m.content).map(obj));
  if (body.toolConfig === undefined && blocks.some((b) => b.toolUse !== undefined || b.toolResult !== undefined)) {
    return { invalid: "The toolConfig field must be defined when using toolUse and toolResult content blocks." };
  }
  for (let i = 0; i < messages.length; i++) {
    const results = arr(messages[i]!.content)
      .map((b) => obj(obj(b).toolResult))
      .filter((r) => Object.keys(r).length > 0);
    if (results.length === 0) continue;
    const asked = new Set(
      arr(messages[i - 1]?.content)
        .map((b) => str(obj(obj(b).toolUse).toolUseId))
        .filter((id) => id !== undefined),
    );
    const stray = results.map((r) => str(r.toolUseId) ?? "").filter((id) => !asked.has(id));
    if (stray.length > 0) return { invalid: `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.` };
  }
  const tools: FakeTool[] = arr(toolConfig.tools)
    .map((t) => obj(obj(t).toolSpec))
    .filter((s) => str(s.name) !== undefined)
    .map((s) => ({ name: str(s.name)!, schema: obj(s.inputSchema).json }));
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const last = messages.at(-1);
  const inference = obj(body.inferenceConfig);
  const maxTokens = num(inference.maxTokens) ?? num(inference.max_new_tokens);
  const turn = fakeTurn({
    tools,
    choice: choiceOf(toolConfig.toolChoice),
    lastUserText: textOf(lastUser?.content),
    afterToolResults: last?.role === "user" && arr(last.content).some((b) => obj(b).toolResult !== undefined),
    parallel: true,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    stop: arr(inference.stopSequences).filter((s): s is string => typeof s === "string"),
  });
  return { turn, inputTokens: Math.max(1, estimateTokens(JSON.stringify([body.system ?? null, body.messages, body.toolConfig ?? null]))) };
}

/** The Converse `stopReason` of a turn. */
export function stopReasonOf(turn: FakeTurn): string {
  if (turn.kind === "tools") return "tool_use";
  return turn.stop === "max_tokens" ? "max_tokens" : turn.stop === "stop_sequence" ? "stop_sequence" : "end_turn";
}

/** Output tokens of a turn: one per streamed piece of text, or the arguments' size / 4. */
export function outputTokensOf(turn: FakeTurn): number {
  return turn.kind === "tools" ? turn.calls.reduce((s, c) => s + estimateTokens(c.arguments), 0) : turn.pieces.length;
}

/** The assistant's content blocks: `{text}`, or `{toolUse: {toolUseId, name, input}}` per call. */
export function converseContent(turn: FakeTurn, nextId: (prefix: string) => string): Json[] {
  if (turn.kind === "text") return [{ text: turn.text }];
  return turn.calls.map((c) => ({ toolUse: { toolUseId: nextId("tooluse_fake"), name: c.name, input: JSON.parse(c.arguments) as unknown } }));
}

/** A Converse reply: `output.message`, `stopReason`, `usage` (input, output and total tokens) and `metrics`. */
export function converseReply(turn: FakeTurn, inputTokens: number, content: Json[]): Json {
  const outputTokens = outputTokensOf(turn);
  return {
    metrics: { latencyMs: 42 },
    output: { message: { content, role: "assistant" } },
    stopReason: stopReasonOf(turn),
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
  };
}

/** The padding the service adds to every streamed event (`p`), so event sizes do not give the content away. */
const pad = (n: number) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".slice(0, 4 + (n % 40));

/**
 * The ConverseStream events of a reply, named as in the API reference: `messageStart`, per
 * block `contentBlockStart` (tool use only, with `toolUseId` and `name`), `contentBlockDelta`s
 * (`{text}`, or `{toolUse: {input}}` pieces of the arguments' JSON), `contentBlockStop`; then
 * `messageStop` with the `stopReason` and `metadata` with `usage` and `metrics`. Each event
 * carries the service's padding field `p`, which the SDK ignores.
 */
export function converseStreamEvents(turn: FakeTurn, reply: Json): EventStreamMessage[] {
  const out: EventStreamMessage[] = [];
  const ev = (type: string, fields: Json) => out.push(jsonEventMessage(type, { ...fields, p: pad(out.length) }));
  ev("messageStart", { role: "assistant" });
  const content = arr(obj(obj(reply.output).message).content).map(obj);
  content.forEach((block, contentBlockIndex) => {
    const use = obj(block.toolUse);
    if (block.toolUse !== undefined) {
      ev("contentBlockStart", { contentBlockIndex, start: { toolUse: { name: use.name, toolUseId: use.toolUseId } } });
      for (const input of pieces(JSON.stringify(use.input), 8)) ev("contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input } } });
    } else {
      for (const text of turn.kind === "text" ? turn.pieces : []) if (text !== "") ev("contentBlockDelta", { contentBlockIndex, delta: { text } });
    }
    ev("contentBlockStop", { contentBlockIndex });
  });
  ev("messageStop", { stopReason: reply.stopReason });
  ev("metadata", { metrics: { latencyMs: 42 }, usage: reply.usage });
  return out;
}
