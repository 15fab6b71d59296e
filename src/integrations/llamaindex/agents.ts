import { context, createContextKey } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { quietly } from "../kit/model-call.js";
import { watchLlm } from "./llm-calls.js";
import { field } from "./messages.js";
import type { AgentWorkflowClass } from "./types.js";

/**
 * Workflow agents (`agent()` and `multiAgent()` of `@llamaindex/workflow`, an `AgentWorkflow`)
 * send their steps through the workflow's own event stream, not through the `CallbackManager`:
 * `AgentWorkflow.prototype.run` and `runStream` are wrapped so that a run is one agent span
 * (input, result, `availableTools`), with the run's model and tool calls under it. What they
 * return and throw is unchanged.
 */

/** Marks a patched `run` (any copy of evaltrace): its value is the gate holder. */
const PATCHED = Symbol.for("evaltrace.llamaindex.agentWorkflow");

type Run = (this: unknown, ...args: unknown[]) => unknown;

/** Whether the wrapper records: replaced when instrumented again (the app's own call wins over zero-code). */
interface Gate {
  on: () => boolean;
}

/** The agents of a workflow (`agents`: a Map of name → agent with `llm` and `tools`). */
function agentsOf(workflow: unknown): unknown[] {
  const agents = field(workflow, "agents");
  return agents instanceof Map ? [...agents.values()] : [];
}

function toolNames(agents: unknown[]): string[] {
  const names = new Set<string>();
  for (const agent of agents) {
    const tools = field(agent, "tools");
    if (!Array.isArray(tools)) continue;
    for (const tool of tools) {
      const name = field(field(tool, "metadata"), "name");
      if (typeof name === "string" && name && names.size < 200) names.add(name);
    }
  }
  return [...names];
}

/** A run's result: the stop event's `data.result` (the reply text), else its data. */
function resultOf(event: unknown): unknown {
  const data = field(event, "data");
  return field(data, "result") ?? data;
}

/** Set in the context of a recorded `run`: the `runStream` it calls is that run, not another. */
const IN_RUN = createContextKey("evaltrace.llamaindex.agentRun");

/** The stop event of a run (`stopAgentEvent`: its data holds the `result`), known by its shape. */
const stopEvent = { include: (event: unknown) => isObject(field(event, "data")) && "result" in (field(event, "data") as object) };
const isObject = (v: unknown): v is object => v !== null && typeof v === "object";

/** Opens the run's agent span (its agents' models watched); undefined when not recording. */
function openRun(workflow: unknown, input: unknown): ManualSpan | undefined {
  let span: ManualSpan | undefined;
  quietly(() => {
    const agents = agentsOf(workflow);
    for (const agent of agents) watchLlm(field(agent, "llm"));
    const name = field(workflow, "rootAgentName");
    span = openSpan(typeof name === "string" && name ? name : "agent", "agent", { availableTools: toolNames(agents) }, input);
    span?.setIntegration("LlamaIndex");
  });
  return span;
}

/** `run`: the span ends with the run's promise. */
function recordRun(original: Run, gate: Gate): Run {
  return function (this: unknown, ...args: unknown[]) {
    if (!gate.on()) return original.apply(this, args);
    const opened = openRun(this, args[0]);
    if (!opened) return original.apply(this, args);
    let result: unknown;
    try {
      result = context.with(opened.context.setValue(IN_RUN, true), () => original.apply(this, args));
    } catch (err) {
      opened.fail(err);
      throw err;
    }
    if (result instanceof Promise) result.then((event: unknown) => opened.end(resultOf(event)), (err: unknown) => opened.fail(err));
    else opened.end(resultOf(result));
    return result;
  };
}

/**
 * `runStream` (called by the app; `run` calls it too, and is recorded itself): the span ends at
 * the run's stop event, seen through the stream's own subscription (`on`), which reads nothing of
 * what the app reads. The stream returned is the workflow's own.
 */
function recordRunStream(original: Run, gate: Gate): Run {
  return function (this: unknown, ...args: unknown[]) {
    if (!gate.on() || context.active().getValue(IN_RUN)) return original.apply(this, args);
    const opened = openRun(this, args[0]);
    if (!opened) return original.apply(this, args);
    let stream: unknown;
    try {
      stream = context.with(opened.context, () => original.apply(this, args));
    } catch (err) {
      opened.fail(err);
      throw err;
    }
    quietly(() => {
      const on = field(stream, "on");
      if (typeof on !== "function") return opened.end();
      let off: unknown;
      off = on.call(stream, stopEvent, (event: unknown) => {
        opened.end(resultOf(event));
        if (typeof off === "function") quietly(() => (off as () => void)());
      });
    });
    return stream;
  };
}

const recorders: Record<string, (original: Run, gate: Gate) => Run> = { run: recordRun, runStream: recordRunStream };

/** Wraps `run` and `runStream` of an `AgentWorkflow` class once; a second call replaces the gate. Never throws. */
export function instrumentAgentWorkflow(AgentWorkflow: AgentWorkflowClass | undefined, on: () => boolean): void {
  quietly(() => {
    const proto = AgentWorkflow?.prototype as Record<PropertyKey, unknown> | undefined;
    if (!proto) return;
    for (const [name, record] of Object.entries(recorders)) {
      const original = proto[name];
      if (typeof original !== "function") continue;
      const existing = (original as { [PATCHED]?: Gate })[PATCHED];
      if (existing) {
        existing.on = on;
        continue;
      }
      const gate: Gate = { on };
      const wrapped = record(original as Run, gate);
      Object.defineProperty(wrapped, PATCHED, { value: gate });
      Object.defineProperty(wrapped, "name", { value: name, configurable: true });
      Object.defineProperty(proto, name, { value: wrapped, writable: true, configurable: true, enumerable: false });
    }
  });
}
