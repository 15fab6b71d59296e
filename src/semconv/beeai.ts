import type { Attributes } from "@opentelemetry/api";
import { parentSpanContextOf } from "../spans/span-shape.js";
import type { FinishedSpan } from "./types.js";

/**
 * OpenInference's BeeAI instrumentation (`@arizeai/openinference-instrumentation-beeai`) records
 * one span per framework event, after the run (helpers/buildTraceTree.ts): a span with the
 * event's emitter path as `target` and its name as `name`. A model call is three LLM spans, a
 * tool run three TOOL spans. Folded here to one span per call: the event → what becomes of its
 * span. `carry`: left out, its attributes (the input, the model) carried to the span that closes
 * the run; `keep`: the run's one span; `drop`: left out. The agent's own event spans (AGENT) are
 * all left out: the instrumentation's `beeai-framework-main` span is the agent, with its input
 * and output. What the instrumentation records but not where OpenInference has it is moved
 * there: a model call's tool calls (from its `output.value`), the agent's answer as text.
 */
const events: Record<string, "carry" | "keep" | "drop"> = {
  start: "carry",
  success: "keep",
  error: "keep",
  finish: "drop",
  retry: "drop",
  newToken: "drop",
  update: "drop",
  partialUpdate: "drop",
};

/** A BeeAI event span: its run (the emitter path without the event) and what becomes of it. */
export interface BeeAiEvent {
  run: string;
  fold: "carry" | "keep" | "drop";
}

/** The BeeAI event a span of OpenInference records, if it is one. */
export function beeAiEvent(a: Attributes): BeeAiEvent | undefined {
  const kind = a["openinference.span.kind"];
  const target = a.target;
  const name = a.name;
  if (typeof kind !== "string" || typeof target !== "string" || typeof name !== "string" || !target.endsWith(`.${name}`)) return undefined;
  const fold = events[name];
  if (fold === undefined) return undefined;
  const run = target.slice(0, -(name.length + 1));
  return { run, fold: kind.toUpperCase() === "AGENT" ? "drop" : fold };
}

/** The name of a run's one span: a tool's own name (the last segment of its path), a model's path. */
export function beeAiRunName(event: BeeAiEvent, kind: string): string {
  return kind.toUpperCase() === "TOOL" ? event.run.slice(event.run.lastIndexOf(".") + 1) : event.run;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const parse = (v: unknown): unknown => {
  if (typeof v !== "string") return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

/**
 * A model call's tool calls, which the instrumentation leaves out of `llm.output_messages` (a
 * reply of tool calls only is one message with empty content), from its `output.value`: BeeAI's
 * messages, their `content` parts `{type: "tool-call", toolCallId, toolName, args}`. As
 * OpenInference's flattened tool calls, for its table to read; none when the span has some.
 */
function replyToolCalls(a: Attributes): Attributes {
  const out: Attributes = {};
  if (Object.keys(a).some((k) => k.startsWith("llm.output_messages.") && k.includes(".message.tool_calls."))) return out;
  const messages = parse(a["output.value"]);
  if (!Array.isArray(messages)) return out;
  messages.forEach((m, i) => {
    if (!isObj(m) || !Array.isArray(m.content)) return;
    let j = 0;
    for (const part of m.content) {
      if (!isObj(part) || part.type !== "tool-call" || typeof part.toolName !== "string") continue;
      const key = `llm.output_messages.${i}.message.tool_calls.${j++}.tool_call`;
      if (typeof part.toolCallId === "string") out[`${key}.id`] = part.toolCallId;
      out[`${key}.function.name`] = part.toolName;
      out[`${key}.function.arguments`] = JSON.stringify(part.args ?? {});
    }
  });
  return out;
}

/** The agent span's answer: its `output.value` is BeeAI's message (`{role, text}`), read as its text. */
function agentAnswer(a: Attributes): Attributes | undefined {
  if (a["beeai.version"] === undefined) return undefined;
  const message = parse(a["output.value"]);
  return isObj(message) && typeof message.text === "string" ? { ...a, "output.value": message.text, "output.mime_type": "text/plain" } : undefined;
}

/** Runs whose start was seen and whose closing span was not yet: at most this many are remembered. */
const MAX_OPEN_RUNS = 256;

/**
 * The attributes a BeeAI run's `start` span carried, until the span that closes the run (a
 * sibling: same parent, same run) is read; its reader owns one.
 */
export class BeeAiRuns {
  private readonly carried = new Map<string, Attributes>();

  /** `finished` as the conventions should read it: a closing span with its start's attributes under its own. */
  fold(span: object, finished: FinishedSpan): FinishedSpan {
    const event = beeAiEvent(finished.attributes);
    if (event === undefined) {
      const answer = agentAnswer(finished.attributes);
      return answer === undefined ? finished : { ...finished, attributes: answer };
    }
    if (event.fold === "drop") return finished;
    const key = `${parentSpanContextOf(span)?.spanId ?? ""}|${event.run}`;
    if (event.fold === "carry") {
      this.carried.delete(key);
      this.carried.set(key, finished.attributes);
      if (this.carried.size > MAX_OPEN_RUNS) this.carried.delete(this.carried.keys().next().value!);
      return finished;
    }
    const start = this.carried.get(key);
    const calls = String(finished.attributes["openinference.span.kind"]).toUpperCase() === "LLM" ? replyToolCalls(finished.attributes) : {};
    return start === undefined && Object.keys(calls).length === 0 ? finished : { ...finished, attributes: { ...start, ...finished.attributes, ...calls } };
  }
}
