/**
 * Which LangChain runs become spans, and of which type, as data tables: what the handler knows
 * of a chain run when it starts, the rules that make it graph plumbing (not recorded; its
 * children go under the nearest recorded run) and the rules that make it an agent.
 */

/** What a chain run shows when it starts. */
export interface ChainFacts {
  name: string;
  /** The serialized runnable's class path (`["langgraph", "pregel", "CompiledStateGraph"]`). */
  classPath: readonly string[];
  tags: readonly string[];
  metadata: Readonly<Record<string, unknown>>;
  /** LangChain's run type, when the caller gave one (`agent`). */
  runType?: string;
  /** Whether the run is inside a LangGraph graph (its parent is a graph or inside one). */
  insideGraph: boolean;
  /** Whether the handler keeps graph node runs (option `graphNodes`). */
  keepNodes: boolean;
}

/** Classes of LangGraph's compiled graphs: `StateGraph.compile()`, `createReactAgent`, the functional API. */
const graphClasses = new Set(["CompiledStateGraph", "CompiledGraph", "Pregel", "CompiledMessageGraph"]);

/** Whether the run is a LangGraph graph (or subgraph) as a whole. */
export function isGraph(f: Pick<ChainFacts, "classPath" | "metadata">): boolean {
  return f.classPath[0] === "langgraph" && graphClasses.has(f.classPath.at(-1) ?? "");
}

/** Whether the run is a node of a LangGraph graph (LangGraph names node runs after the node). */
function isNode(f: ChainFacts): boolean {
  return f.insideGraph && typeof f.metadata.langgraph_node === "string" && f.metadata.langgraph_node === f.name;
}

/**
 * Runs that are not recorded. Inside a graph, the graph's own steps (nodes, routing edges, the
 * sequences and lambdas that wire prompt to model) would bury the model and tool calls that make
 * up the agent's work; the graph's span (input and output state) already shows what they pass.
 */
export const plumbingRules: readonly { why: string; test(f: ChainFacts): boolean }[] = [
  { why: "LangChain's marker for internal runs (LangGraph's __start__, channel reads and writes)", test: (f) => f.tags.includes("langsmith:hidden") },
  { why: "a graph's nodes, edges and wiring (kept: subgraphs; nodes too with graphNodes)", test: (f) => f.insideGraph && !isGraph(f) && !(f.keepNodes && isNode(f)) },
];

/** Chain runs recorded as agent spans; others are base spans. */
export const agentRules: readonly { why: string; test(f: ChainFacts): boolean }[] = [
  { why: "a LangGraph graph: createReactAgent, a StateGraph, the functional API", test: isGraph },
  { why: "LangChain's own agent run type", test: (f) => f.runType === "agent" },
  { why: "AgentExecutor and chains named as agents, outside graphs (a graph's `agent` node is a step)", test: (f) => !f.insideGraph && /agent/i.test(f.name) },
];

/**
 * Errors that are LangGraph control flow, not failures: an interrupt (human in the loop) pauses
 * the graph, a parent command hands off to another agent. Their runs end as they are.
 */
export const controlFlowErrors = new Set(["GraphInterrupt", "NodeInterrupt", "ParentCommand"]);

/** Tool names offered to a chat model: `extraParams.options.tools` or `invocation_params.tools`. */
export function offeredTools(extraParams: Record<string, unknown> | undefined): string[] {
  const options = extraParams?.options as { tools?: unknown } | undefined;
  const params = extraParams?.invocation_params as { tools?: unknown } | undefined;
  const tools = Array.isArray(options?.tools) ? options.tools : Array.isArray(params?.tools) ? params.tools : [];
  const names: string[] = [];
  for (const t of tools.slice(0, 200)) {
    if (t === null || typeof t !== "object") continue;
    const fn = (t as { function?: { name?: unknown } }).function;
    const name = fn && typeof fn === "object" ? fn.name : (t as { name?: unknown }).name;
    if (typeof name === "string" && name) names.push(name);
  }
  return names;
}
