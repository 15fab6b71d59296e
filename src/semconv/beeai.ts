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
 * and output.
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
    if (event === undefined || event.fold === "drop") return finished;
    const key = `${parentSpanContextOf(span)?.spanId ?? ""}|${event.run}`;
    if (event.fold === "carry") {
      this.carried.delete(key);
      this.carried.set(key, finished.attributes);
      if (this.carried.size > MAX_OPEN_RUNS) this.carried.delete(this.carried.keys().next().value!);
      return finished;
    }
    const start = this.carried.get(key);
    return start === undefined ? finished : { ...finished, attributes: { ...start, ...finished.attributes } };
  }
}
