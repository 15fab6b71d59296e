import type { ToolCall } from "../../protocol/types.js";
import { type CallResult, toolCall } from "../kit/model-call.js";
import type { ReplyTable, StreamTable } from "./endpoints.js";
import { first, pick, strings } from "./paths.js";
import { outputOf, replyResult } from "./read-body.js";

/** A tool call being streamed: its name, and its arguments as text pieces or a whole object. */
interface OpenCall {
  name: string;
  text: string;
  whole?: unknown;
}

/**
 * Adds up the events of one streamed reply with an endpoint's stream table: text pieces appended,
 * tool calls assembled from their pieces, the first model, the last token counts; an event that
 * carries the whole reply replaces the pieces. `result()` at any time is what arrived so far.
 */
export class StreamFold {
  private text = "";
  private model: unknown;
  private inputTokens: unknown;
  private outputTokens: unknown;
  private readonly calls = new Map<string, OpenCall>();
  private readonly whole: ToolCall[] = [];
  private complete: CallResult | undefined;

  constructor(
    private readonly table: StreamTable,
    private readonly reply: ReplyTable,
  ) {}

  /** One event's data (parsed JSON). */
  add(event: unknown): void {
    const t = this.table;
    if (t.whole !== undefined) {
      const reply = pick(event, t.whole)[0];
      if (reply !== undefined) this.complete = replyResult(this.reply, reply);
    }
    if (t.chunks) {
      const part = replyResult(this.reply, event);
      this.text += strings(event, this.reply.text).join("");
      this.whole.push(...part.toolCalls);
      this.model = part.model ?? this.model;
      this.inputTokens = part.inputTokens ?? this.inputTokens;
      this.outputTokens = part.outputTokens ?? this.outputTokens;
      return;
    }
    this.text += strings(event, t.text).join("");
    this.model ??= first(event, t.model);
    this.inputTokens = first(event, t.inputTokens) ?? this.inputTokens;
    this.outputTokens = first(event, t.outputTokens) ?? this.outputTokens;
    for (const c of t.calls ?? []) {
      for (const item of pick(event, c.at)) {
        const key = c.key === undefined ? String(this.calls.size) : String(first(item, [c.key]));
        const name = c.name === undefined ? undefined : first(item, [c.name]);
        const args = first(item, [c.args]);
        if (typeof name === "string") this.calls.set(key, { name, text: "" });
        const open = this.calls.get(key);
        if (!open) continue;
        if (typeof args === "string") open.text += args;
        else if (args !== undefined && !(typeof args === "object" && Object.keys(args as object).length === 0)) open.whole = args;
      }
    }
  }

  /** What the stream gave so far. */
  result(): CallResult {
    if (this.complete) return this.complete;
    const toolCalls = [...this.whole, ...[...this.calls.values()].map((c) => toolCall(c.name, c.text === "" ? c.whole : c.text))];
    return { output: outputOf(this.text, toolCalls), model: this.model, inputTokens: this.inputTokens, outputTokens: this.outputTokens, toolCalls, metadata: {} };
  }
}

