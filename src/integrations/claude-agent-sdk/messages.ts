import { isObject } from "../kit/model-call.js";

/**
 * Readers of the messages the Claude Agent SDK's `query()` yields (`SDKMessage`: `system` (init),
 * `assistant`, `user`, `result`, and others we pass by), typed loosely: the SDK's own types are not
 * a dependency, and a field of an unexpected shape reads as absent. Nothing here throws.
 */

/** One content block of an assistant or user message, as far as we read it. */
export interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
}

/** A message of the SDK, as far as we read it. */
export interface SdkMessage {
  type?: unknown;
  subtype?: unknown;
  session_id?: unknown;
  parent_tool_use_id?: unknown;
  message?: unknown;
  error?: unknown;
  [key: string]: unknown;
}

/** A tool call the model made: its id, the tool's name and its input. */
export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}

/** A tool's result, as the SDK hands it back to the model. */
export interface ToolResult {
  toolUseId: string;
  /** The result's text (text parts joined), or its content as it is when it holds more than text. */
  output: unknown;
  isError: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** `v` as a finite number, else undefined. */
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The message as one of the SDK's, or undefined for anything else. */
export const asMessage = (v: unknown): SdkMessage | undefined => (isObject(v) ? (v as SdkMessage) : undefined);

/** The thread a message belongs to: the tool call that started its subagent, or "" for the main agent. */
export const threadOf = (m: SdkMessage): string => str(m.parent_tool_use_id) ?? "";

/** The content blocks of an assistant or user message (a string content is one text block). */
export function blocksOf(m: SdkMessage): Block[] {
  const content = isObject(m.message) ? m.message.content : undefined;
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject).map((b) => b as Block) : [];
}

/** The text of content blocks (or of a string), text parts joined by newlines. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is Block => isObject(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

/** The tool calls among an assistant message's blocks (`tool_use`, the SDK MCP and built-in tools alike). */
export function toolUsesOf(blocks: Block[]): ToolUse[] {
  return blocks.flatMap((b) => {
    const id = str(b.id);
    const name = str(b.name);
    return b.type === "tool_use" && id && name ? [{ id, name, input: b.input }] : [];
  });
}

/** The tool results among a user message's blocks. */
export function toolResultsOf(blocks: Block[]): ToolResult[] {
  return blocks.flatMap((b) => {
    const toolUseId = str(b.tool_use_id);
    if (b.type !== "tool_result" || !toolUseId) return [];
    const onlyText = typeof b.content === "string" || (Array.isArray(b.content) && b.content.every((p) => isObject(p) && p.type === "text"));
    return [{ toolUseId, output: onlyText ? textOf(b.content) : b.content, isError: b.is_error === true }];
  });
}

/** The model's reply as an assistant message carries it: id, model, usage, and the error of a failed call. */
export interface AssistantTurn {
  id: string | undefined;
  model: string | undefined;
  usage: Record<string, unknown>;
  /** The error the SDK reports for the call (an API error's text), if any. */
  error: string | undefined;
}

/** What an assistant message says of its model call. */
export function assistantTurnOf(m: SdkMessage): AssistantTurn {
  const message = isObject(m.message) ? m.message : {};
  const model = str(message.model);
  const failed = m.error !== undefined && m.error !== null;
  return {
    id: str(message.id),
    // "<synthetic>": the SDK's stand-in for a reply no model gave (an API error's text).
    model: model === "<synthetic>" ? undefined : model,
    usage: isObject(message.usage) ? (message.usage as Record<string, unknown>) : {},
    error: failed ? textOf(message.content) || String(m.error) : undefined,
  };
}

/** Whether a result message reports a failed run (`is_error`, or an `error_*` subtype). */
export function resultFailed(m: SdkMessage): boolean {
  return m.is_error === true || (typeof m.subtype === "string" && m.subtype.startsWith("error"));
}

/** A failed run's error text: its `result`, else its `errors`, else its subtype. */
export function resultErrorText(m: SdkMessage): string {
  const errors = Array.isArray(m.errors) ? m.errors.filter((e) => typeof e === "string").join("; ") : "";
  return str(m.result) ?? (errors || `Claude Agent SDK run failed (${String(m.subtype ?? "error")})`);
}

/** The run's figures of a result message, as span metadata. */
export function resultMetadata(m: SdkMessage): Record<string, unknown> {
  const usage = isObject(m.usage) ? m.usage : {};
  return {
    resultSubtype: str(m.subtype),
    numTurns: num(m.num_turns),
    totalCostUsd: num(m.total_cost_usd),
    durationMs: num(m.duration_ms),
    durationApiMs: num(m.duration_api_ms),
    stopReason: str(m.stop_reason),
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cacheCreationInputTokens: num(usage.cache_creation_input_tokens),
    cacheReadInputTokens: num(usage.cache_read_input_tokens),
    permissionDenials: Array.isArray(m.permission_denials) && m.permission_denials.length > 0 ? m.permission_denials.length : undefined,
  };
}

/** What the init system message says of the session, as span metadata. */
export function initMetadata(m: SdkMessage): Record<string, unknown> {
  return {
    sessionId: str(m.session_id),
    model: str(m.model),
    permissionMode: str(m.permissionMode),
    claudeCodeVersion: str(m.claude_code_version),
    cwd: str(m.cwd),
  };
}

/** The tools the init message lists (built-in and MCP tools by name). */
export const initTools = (m: SdkMessage): string[] => (Array.isArray(m.tools) ? m.tools.filter((t): t is string => typeof t === "string") : []);
