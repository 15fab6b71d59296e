import { sampleFromSchema } from "./schema.js";

/** The text every fake model answers with. */
export const FAKE_REPLY = "Orders ship in 2 days.";

/** How the reply text is streamed: one piece per delta, one piece per output token. */
const REPLY_PIECES = ["Orders ", "ship ", "in ", "2 days."];

/** A tool the request offers the model, in any API's terms: its name and its JSON Schema. */
export interface FakeTool {
  name: string;
  schema?: unknown;
}

/**
 * Whether the model must, may or must not call a tool: `auto` (the default), `none`, `required`
 * (any tool), or one tool by name.
 */
export type FakeToolChoice = { mode: "auto" | "none" | "required" } | { mode: "named"; name: string };

/** What a fake model looks at in a request, whatever the API. */
export interface FakeTurnInput {
  /** The function tools offered. */
  tools: FakeTool[];
  choice: FakeToolChoice;
  /** The text of the last user message (to find the tools it names and "no tool"). */
  lastUserText: string;
  /** Whether the conversation ends with tool results (the model then answers). */
  afterToolResults: boolean;
  /** Whether several tools may be called in one turn. */
  parallel: boolean;
  /** A JSON Schema for structured output, `"json"` for JSON mode, undefined for text. */
  output?: unknown;
  /** The output token limit, if any. */
  maxTokens?: number;
  /** Stop sequences: the text ends before the first one found. */
  stop?: string[];
}

/** One tool call the fake model makes. */
export interface FakeToolCall {
  name: string;
  /** The arguments as a JSON string (a sample of the tool's schema). */
  arguments: string;
}

/** What the fake model answers: text (in streaming pieces), or tool calls. */
export type FakeTurn =
  | {
      kind: "text";
      text: string;
      /** The text cut into streaming deltas; each counts as one output token. */
      pieces: string[];
      /** Why the text ended. */
      stop: "end" | "max_tokens" | "stop_sequence";
      /** The stop sequence found, when `stop` is `stop_sequence`. */
      stopSequence?: string;
    }
  | { kind: "tools"; calls: FakeToolCall[] };

/**
 * A reply a test scripts for a fake model instead of the deterministic one: a text, or calls of
 * tools by name with the exact input (e.g. an agent framework's own `Agent` tool with the
 * subagent to start).
 */
export type FakeReply = { text: string } | { toolCalls: { name: string; input: Record<string, unknown> }[] };

/**
 * A scripted reply, or a function of the request that returns one (or `undefined`: this request
 * gets the usual answer, and the entry waits for the next request).
 */
export type FakeScript<Request> = FakeReply | ((request: Request) => FakeReply | undefined);

/** The turn a scripted reply makes (its text streamed in pieces like the usual reply). */
export function scriptedTurn(reply: FakeReply): FakeTurn {
  if ("toolCalls" in reply) return { kind: "tools", calls: reply.toolCalls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.input) })) };
  return { kind: "text", text: reply.text, pieces: pieces(reply.text), stop: "end" };
}

/**
 * A queue of scripted replies: `take(request)` answers with the first entry that has a reply
 * for the request (and removes it), else undefined.
 */
export function scriptQueue<Request>(): { push(...entries: FakeScript<Request>[]): void; take(request: Request): FakeTurn | undefined } {
  const queue: FakeScript<Request>[] = [];
  return {
    push(...entries) {
      for (const e of entries) {
        if (typeof e !== "function" && (typeof e !== "object" || e === null || !("text" in e || "toolCalls" in e))) throw new TypeError("script: a reply is { text } or { toolCalls: [{ name, input }] }, or a function of the request returning one");
        queue.push(e);
      }
    },
    take(request) {
      for (let i = 0; i < queue.length; i++) {
        const entry = queue[i]!;
        const reply = typeof entry === "function" ? entry(request) : entry;
        if (reply === undefined) continue;
        queue.splice(i, 1);
        return scriptedTurn(reply);
      }
      return undefined;
    },
  };
}

/** Cuts `text` into pieces of at most `size` characters (the fakes' streaming deltas). */
export function pieces(text: string, size = 4): string[] {
  if (text === FAKE_REPLY) return [...REPLY_PIECES];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

/** A token estimate the fakes use for usage: one token per 4 characters, rounded up. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * What the fake model does with a request. Deterministic:
 * - tool choice `none`, or no tools → text;
 * - tool choice naming a tool → that tool, always; `required` → a tool, always;
 * - `auto` → text when the conversation ends with tool results or the last user message says
 *   "no tool"; otherwise the tools the last user message names (only the first unless parallel
 *   calls are allowed), or else the first tool.
 * A tool's arguments are a sample of its JSON Schema (see `sampleFromSchema`), so
 * `{"orderId": "A-1001"}` for `{orderId: string}`. The text is the JSON sample of the output schema
 * in structured output mode, `{"answer": "Orders ship in 2 days."}` in JSON mode, or else
 * "Orders ship in 2 days."; it is cut at the first stop sequence and at `maxTokens` pieces.
 */
export function fakeTurn(input: FakeTurnInput): FakeTurn {
  const calls = chooseTools(input);
  if (calls.length > 0) return { kind: "tools", calls: calls.map((t) => ({ name: t.name, arguments: JSON.stringify(sampleFromSchema(t.schema)) })) };
  let text = input.output === undefined ? FAKE_REPLY : input.output === "json" ? JSON.stringify({ answer: FAKE_REPLY }) : JSON.stringify(sampleFromSchema(input.output));
  let stop: "end" | "max_tokens" | "stop_sequence" = "end";
  let stopSequence: string | undefined;
  for (const s of input.stop ?? []) {
    const at = s === "" ? -1 : text.indexOf(s);
    if (at >= 0) {
      text = text.slice(0, at);
      stop = "stop_sequence";
      stopSequence = s;
    }
  }
  let parts = pieces(text);
  if (stopSequence !== undefined) parts = parts.filter((p) => p !== "");
  if (input.maxTokens !== undefined && input.maxTokens > 0 && parts.length > input.maxTokens) {
    parts = parts.slice(0, input.maxTokens);
    text = parts.join("");
    stop = "max_tokens";
    stopSequence = undefined;
  }
  return { kind: "text", text, pieces: parts.length > 0 ? parts : [""], stop, ...(stopSequence !== undefined ? { stopSequence } : {}) };
}

function chooseTools({ tools, choice, lastUserText, afterToolResults, parallel }: FakeTurnInput): FakeTool[] {
  if (choice.mode === "none") return [];
  if (choice.mode === "named") return [tools.find((t) => t.name === choice.name) ?? { name: choice.name }];
  if (tools.length === 0) return [];
  if (choice.mode === "auto" && (afterToolResults || /\bno tools?\b/i.test(lastUserText))) return [];
  const named = tools.filter((t) => t.name !== "" && lastUserText.includes(t.name));
  const picked = named.length > 0 ? named : [tools[0]!];
  return parallel ? picked : picked.slice(0, 1);
}
