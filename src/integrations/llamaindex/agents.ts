import { context } from "@opentelemetry/api";
import { openSpan } from "../../tracing/manual-span.js";
import { quietly } from "../kit/model-call.js";
import { watchLlm } from "./llm-calls.js";
import { field } from "./messages.js";
import type { AgentWorkflowClass } from "./types.js";

/**
 * Workflow agents (`agent()` and `multiAgent()` of `@llamaindex/workflow`, an `AgentWorkflow`)
 * send their steps through the workflow's own event stream, not through the `CallbackManager`:
 * `AgentWorkflow.prototype.run` is wrapped so that a run is one agent span (input, result,
 * `availableTools`), with the run's model and tool calls under it. What `run` returns and throws
 * is unchanged.
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

/** Wraps `run` of an `AgentWorkflow` class once; a second call replaces the gate. Never throws. */
export function instrumentAgentWorkflow(AgentWorkflow: AgentWorkflowClass | undefined, on: () => boolean): void {
  quietly(() => {
    const proto = AgentWorkflow?.prototype as Record<PropertyKey, unknown> | undefined;
    const original = proto?.run;
    if (!proto || typeof original !== "function") return;
    const existing = (original as { [PATCHED]?: Gate })[PATCHED];
    if (existing) {
      existing.on = on;
      return;
    }
    const gate: Gate = { on };
    const run: Run = function (this: unknown, ...args: unknown[]) {
      if (!gate.on()) return (original as Run).apply(this, args);
      let span: ReturnType<typeof openSpan>;
      quietly(() => {
        const agents = agentsOf(this);
        for (const agent of agents) watchLlm(field(agent, "llm"));
        const name = field(this, "rootAgentName");
        span = openSpan(typeof name === "string" && name ? name : "agent", "agent", { availableTools: toolNames(agents) }, args[0]);
        span?.setIntegration("LlamaIndex");
      });
      if (!span) return (original as Run).apply(this, args);
      const opened = span;
      let result: unknown;
      try {
        result = context.with(opened.context, () => (original as Run).apply(this, args));
      } catch (err) {
        opened.fail(err);
        throw err;
      }
      if (result instanceof Promise) result.then((event: unknown) => opened.end(resultOf(event)), (err: unknown) => opened.fail(err));
      else opened.end(resultOf(result));
      return result;
    };
    Object.defineProperty(run, PATCHED, { value: gate });
    Object.defineProperty(run, "name", { value: "run", configurable: true });
    Object.defineProperty(proto, "run", { value: run, writable: true, configurable: true, enumerable: false });
  });
}
