import type { Context } from "@opentelemetry/api";
import type { ToolCall } from "../../protocol/types.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { callLine, isObject, quietly, setMetadata, toolCall } from "../kit/model-call.js";
import {
  assistantTurnOf,
  asMessage,
  blocksOf,
  initMetadata,
  initTools,
  num,
  resultErrorText,
  resultFailed,
  resultMetadata,
  type SdkMessage,
  type ToolResult,
  threadOf,
  textOf,
  toolResultsOf,
  toolUsesOf,
} from "./messages.js";

/** The integration name our spans carry. */
const INTEGRATION = "Claude Agent SDK";

/** One model turn being read: the assistant messages of one reply (the SDK yields one per content block). */
interface Turn {
  id: string | undefined;
  span: ManualSpan;
  texts: string[];
  lines: string[];
  calls: ToolCall[];
  toolUseIds: string[];
}

/** An agent's run: the main one (thread "") or a subagent's (thread = the tool call that started it). */
interface Thread {
  agent: ManualSpan;
  turn?: Turn;
  /** What the model was given since its last turn (the prompt, then tool results), as the next turn's input. */
  pending: { role: string; content: unknown }[];
  /** Tool calls of this thread still waiting for their result. */
  tools: Set<string>;
}

/** An open tool span. */
interface OpenTool {
  span: ManualSpan;
  name: string;
  input: unknown;
  thread: string;
}

/** Bound on what a thread keeps as the next turn's input (a turn's tool results, usually a few). */
const MAX_PENDING = 64;

const open = (name: string, type: "agent" | "llm" | "tool", input: unknown, parent: Context | undefined): ManualSpan | undefined => {
  const span = openSpan(name, type, {}, input, parent);
  span?.setIntegration(INTEGRATION);
  return span;
};

/**
 * Turns the messages of one `query()` into spans, as they are yielded: an agent span for the
 * query (opened when the app first asks for a message), an llm span per model turn, a tool span
 * per tool call until its result, and a subagent's messages (`parent_tool_use_id`) as an agent
 * span under the tool span of the call that started it. Everything is ended when the query
 * ends, fails or is left by the app. Never throws.
 */
export class QueryRecorder {
  private root: ManualSpan | undefined;
  private started = false;
  private finished = false;
  private readonly threads = new Map<string, Thread>();
  private readonly tools = new Map<string, OpenTool>();
  private sessionSeen = false;
  private output: string | undefined;
  private error: Error | undefined;
  private promptTexts: string[] = [];

  /**
   * @param parent - The context the app called `query()` in (its `observe()` span parents ours).
   * @param prompt - The prompt when it is a string; a streamed prompt is fed in by `promptMessage`.
   */
  constructor(
    private readonly parent: Context,
    private readonly prompt: string | undefined,
  ) {}

  /** Opens the query's agent span, the first time the app asks for a message. */
  begin(): void {
    if (this.started || this.finished) return;
    this.started = true;
    quietly(() => {
      this.root = open("Claude Agent", "agent", this.prompt ?? (this.promptTexts.length > 0 ? this.promptTexts : undefined), this.parent);
      if (this.root) this.threads.set("", { agent: this.root, pending: this.prompt !== undefined ? [{ role: "user", content: this.prompt }] : [], tools: new Set() });
    });
  }

  /** A user message the app streamed in (streaming input mode): the agent's input and the next turn's. */
  promptMessage(message: unknown): void {
    quietly(() => {
      const m = asMessage(message);
      if (m?.type !== "user" || this.finished) return;
      const text = textOf(isObject(m.message) ? m.message.content : undefined);
      if (this.promptTexts.length < MAX_PENDING) this.promptTexts.push(text);
      this.root?.setInput(this.promptTexts.length === 1 ? this.promptTexts[0] : this.promptTexts);
      const main = this.threads.get("");
      if (main && main.pending.length < MAX_PENDING) main.pending.push({ role: "user", content: text });
    });
  }

  /** One message the SDK yielded. */
  message(value: unknown): void {
    if (this.finished) return;
    quietly(() => {
      this.begin();
      const m = asMessage(value);
      if (!m || !this.root) return;
      switch (m.type) {
        case "system":
          if (m.subtype === "init") this.init(m);
          break;
        case "assistant":
          this.assistant(m);
          break;
        case "user":
          this.user(m);
          break;
        case "result":
          this.result(m);
          break;
      }
    });
  }

  /** The query ended (its iterator is done): every span ends, the agent's with the result. */
  done(): void {
    this.close(undefined);
  }

  /** The query failed (its iterator threw) or the app threw into it: every span ends as failed. */
  fail(error: unknown): void {
    this.close(error instanceof Error ? error : new Error(String(error)));
  }

  /** The app stopped reading (`return()`, a `break` out of `for await`): nothing is left open. */
  stop(): void {
    if (this.finished) return;
    this.close(this.output === undefined && this.error === undefined ? new Error("The app stopped reading the query before its result") : undefined);
  }

  private init(m: SdkMessage): void {
    if (this.sessionSeen) return;
    this.sessionSeen = true;
    const root = this.root!;
    root.set({ availableTools: initTools(m) });
    setMetadata(root, initMetadata(m));
  }

  /** The thread of a message, a subagent's opened under the tool call that started it. */
  private thread(key: string): Thread | undefined {
    const known = this.threads.get(key);
    if (known || key === "") return known;
    const tool = this.tools.get(key);
    const input = isObject(tool?.input) ? tool.input : {};
    const name = typeof input.subagent_type === "string" && input.subagent_type ? input.subagent_type : "subagent";
    const agent = open(name, "agent", typeof input.prompt === "string" ? input.prompt : undefined, (tool?.span ?? this.root)?.context);
    if (!agent) return undefined;
    setMetadata(agent, { toolUseId: key, description: typeof input.description === "string" ? input.description : undefined });
    const thread: Thread = { agent, pending: [], tools: new Set() };
    this.threads.set(key, thread);
    return thread;
  }

  private assistant(m: SdkMessage): void {
    const key = threadOf(m);
    const thread = this.thread(key);
    if (!thread) return;
    const reply = assistantTurnOf(m);
    let turn = thread.turn;
    if (!turn || reply.id === undefined || turn.id !== reply.id) {
      this.endTurn(thread);
      const span = open(reply.model ?? "model turn", "llm", thread.pending.length > 0 ? thread.pending : undefined, thread.agent.context);
      thread.pending = [];
      if (!span) return;
      const fields: Record<string, unknown> = {};
      if (reply.model) fields.model = reply.model;
      const input = num(reply.usage.input_tokens);
      const output = num(reply.usage.output_tokens);
      if (input !== undefined) fields.inputTokenCount = input;
      if (output !== undefined) fields.outputTokenCount = output;
      span.set(fields);
      setMetadata(span, {
        messageId: reply.id,
        cacheCreationInputTokens: num(reply.usage.cache_creation_input_tokens),
        cacheReadInputTokens: num(reply.usage.cache_read_input_tokens),
      });
      turn = { id: reply.id, span, texts: [], lines: [], calls: [], toolUseIds: [] };
      thread.turn = turn;
    }
    const blocks = blocksOf(m);
    const text = textOf(blocks);
    if (text) turn.texts.push(text);
    for (const use of toolUsesOf(blocks)) {
      turn.calls.push(toolCall(use.name, use.input));
      turn.lines.push(callLine(use.name, use.input));
      turn.toolUseIds.push(use.id);
      this.openTool(key, thread, use.id, use.name, use.input);
    }
    if (reply.error !== undefined) {
      this.endTurn(thread, new Error(reply.error));
    }
  }

  private openTool(key: string, thread: Thread, id: string, name: string, input: unknown): void {
    if (this.tools.has(id)) return;
    const span = open(name, "tool", input, thread.agent.context);
    if (!span) return;
    setMetadata(span, { toolUseId: id });
    this.tools.set(id, { span, name, input, thread: key });
    thread.tools.add(id);
  }

  /** Ends a thread's model turn: its text and calls as output, tool calls as `toolsCalled`. */
  private endTurn(thread: Thread, error?: Error): void {
    const turn = thread.turn;
    if (!turn) return;
    thread.turn = undefined;
    if (turn.calls.length > 0) {
      turn.span.set({ toolsCalled: turn.calls });
      setMetadata(turn.span, { toolUseIds: turn.toolUseIds });
    }
    if (error) turn.span.fail(error);
    else turn.span.end([...turn.texts, ...turn.lines].join("\n"));
  }

  private user(m: SdkMessage): void {
    const key = threadOf(m);
    const blocks = blocksOf(m);
    const results = toolResultsOf(blocks);
    // A subagent's thread opens with the prompt it is given (the first message it yields).
    const thread = key === "" ? this.threads.get("") : this.thread(key);
    if (thread) this.endTurn(thread);
    for (const result of results) {
      this.endTool(result);
      if (thread && thread.pending.length < MAX_PENDING) thread.pending.push({ role: "tool", content: result.output });
    }
    const text = textOf(blocks);
    if (key !== "" && text && thread && thread.pending.length < MAX_PENDING) thread.pending.push({ role: "user", content: text });
  }

  /** A tool's result: the subagent it started (if any) ends with it, then its span. */
  private endTool(result: ToolResult): void {
    const tool = this.tools.get(result.toolUseId);
    if (!tool) return;
    this.tools.delete(result.toolUseId);
    this.threads.get(tool.thread)?.tools.delete(result.toolUseId);
    const sub = this.threads.get(result.toolUseId);
    if (sub) this.endThread(result.toolUseId, sub, result.isError ? new Error(textOf(result.output) || "subagent failed") : undefined, result.output);
    if (result.isError) tool.span.fail(new Error(typeof result.output === "string" && result.output ? result.output : `tool ${tool.name} failed`));
    else tool.span.end(result.output);
  }

  /** Ends a subagent's thread: its turn, its tools still open, its agent span. */
  private endThread(key: string, thread: Thread, error: Error | undefined, output?: unknown): void {
    this.endTurn(thread, error);
    for (const id of thread.tools) {
      const tool = this.tools.get(id);
      this.tools.delete(id);
      if (tool) tool.span.fail(error ?? new Error(`The ${tool.name} call ended without a result`));
    }
    thread.tools.clear();
    this.threads.delete(key);
    if (key === "") return;
    if (error) thread.agent.fail(error);
    else thread.agent.end(output);
  }

  private result(m: SdkMessage): void {
    const root = this.root!;
    const main = this.threads.get("");
    if (main) this.endTurn(main);
    setMetadata(root, resultMetadata(m));
    const text = typeof m.result === "string" ? m.result : undefined;
    if (resultFailed(m)) {
      this.error = new Error(resultErrorText(m));
    } else {
      this.error = undefined;
      this.output = text;
    }
  }

  /** Ends every open span: subagents first, then the main agent's turn and tools, then the query's span. */
  private close(error: Error | undefined): void {
    if (this.finished) return;
    this.finished = true;
    quietly(() => {
      for (const [key, thread] of [...this.threads]) if (key !== "") this.endThread(key, thread, error ?? new Error("The subagent ended without a result"));
      for (const [id, tool] of [...this.tools]) {
        this.tools.delete(id);
        tool.span.fail(error ?? new Error(`The ${tool.name} call ended without a result`));
      }
      const main = this.threads.get("");
      if (main) this.endThread("", main, error);
      const failure = error ?? this.error;
      if (!this.root) return;
      if (failure) this.root.fail(failure);
      else this.root.end(this.output);
    });
  }
}
