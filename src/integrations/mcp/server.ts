import { registry } from "../../runtime/registry.js";
import { withRemoteParent } from "../../tracing/propagation.js";
import { currentSpanUuid } from "../../tracing/update.js";
import { processWide } from "../../process-wide.js";
import { hookClassMethod, hookMethodOn } from "../kit/class-method.js";
import type { Fn } from "../kit/prototype-method.js";
import { isObject, quietly } from "../kit/model-call.js";
import { type ToolCallStart, traceToolCall } from "./tool-span.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** The part of an `McpServer` (`@modelcontextprotocol/sdk/server/mcp.js`) that {@link instrumentMcpServer} instruments. */
export interface McpServerLike {
  registerTool(...args: never[]): unknown;
}

/**
 * Which servers are traced (shared by the ESM and CommonJS copies of evaltrace): those
 * instrumented, and every one while `every()` says so (zero-code). The server objects themselves
 * are left as they are.
 */
const traced = processWide("mcp.servers", () => ({ instances: new WeakSet<object>(), every: (): boolean => false }));

/** `executeToolHandler` of `McpServer`'s class, hooked: a traced server's handler runs in a tool span. */
const hookHandler = (original: Fn) =>
  function executeToolHandler(this: unknown, ...args: unknown[]) {
    const run = () => original.apply(this, args);
    if (!isObject(this) || !(traced.instances.has(this) || traced.every()) || isTaskTool(args[0])) return run();
    const traceIt = () => traceToolCall(() => describeHandler(this, args[0], args[1]), run);
    const remote = remoteParent(args[2]);
    return remote ? withRemoteParent(remote, traceIt) : traceIt();
  };

/** Every server of the SDK whose `McpServer` class this is is traced while `on()` says so (what zero-code does). */
export function traceEveryMcpServer(McpServer: unknown, on: () => boolean): void {
  const proto = typeof McpServer === "function" ? (McpServer as { prototype?: unknown }).prototype : undefined;
  if (!isObject(proto)) return;
  traced.every = on;
  if (!hookMethodOn(proto, "executeToolHandler", hookHandler)) reportUnexpectedClient("evaltrace/auto (mcp)", "McpServer has no executeToolHandler method of its class (an older @modelcontextprotocol/sdk)");
}


/**
 * Instruments an `McpServer` in place and returns it: every tool handler (registered with
 * `tool(...)` or `registerTool(...)`, before or after this call, or swapped with `update()`) runs
 * inside a tool span named after the tool, with the validated arguments as input, the tool's
 * description, the result as output, and the metadata `{ mcpSide: "server", mcpClient: <the
 * client's name> }`; a handler that throws, or returns `isError: true`, gives an ERRORED span. In
 * the same process as an instrumented client (an in-memory transport) the span is a child of the
 * client's tool span; otherwise it is a child of the active span, or the root of a new trace.
 *
 * The server stays the app's own object and answers exactly as it did. Instrumenting twice is
 * instrumenting once; a server already connected is instrumented as well. Task-based tools
 * (`registerToolTask`, experimental) are not traced: their handler only creates the task.
 *
 * @example
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { instrumentMcpServer } from "evaltrace/mcp";
 * const server = instrumentMcpServer(new McpServer({ name: "orders", version: "1.0.0" }));
 */
export function instrumentMcpServer<T extends McpServerLike>(server: T): T {
  try {
    const target = server as unknown as Record<PropertyKey, unknown>;
    if (traced.instances.has(target)) return server;
    // Every tool call of McpServer goes through executeToolHandler(tool, args, extra), whichever
    // way the tool was registered and whenever: one hook on McpServer's class covers them all.
    if (typeof target.executeToolHandler !== "function") {
      const logger = registry().current?.logger;
      if (typeof target.registerTool === "function") reportUnexpectedClient("instrumentMcpServer", "the server has no executeToolHandler (an McpServer of an older @modelcontextprotocol/sdk)");
      else logger?.debug("instrumentMcpServer: not an McpServer (the low-level Server has no tool handlers to trace); left as it is");
      return server;
    }
    if (!hookClassMethod(server, "executeToolHandler", hookHandler)) reportUnexpectedClient("instrumentMcpServer", "its executeToolHandler is not McpServer's class method");
    else traced.instances.add(target);
  } catch (err) {
    // A server we cannot patch is left as it is.
    reportWrapFailure("instrumentMcpServer", err);
  }
  return server;
}

/**
 * The caller's span from the request's `_meta` (`traceparent`, `tracestate`, as an instrumented
 * client in another process sends them), when the handler does not already run inside a span of
 * this process (an in-process client's context flows to it): the handler's span then joins the
 * caller's trace (see `withRemoteParent`).
 */
function remoteParent(extra: unknown): Record<string, string> | undefined {
  try {
    if (currentSpanUuid() !== undefined || !isObject(extra)) return undefined;
    const meta = extra._meta;
    if (!isObject(meta) || typeof meta.traceparent !== "string") return undefined;
    return typeof meta.tracestate === "string" ? { traceparent: meta.traceparent, tracestate: meta.tracestate } : { traceparent: meta.traceparent };
  } catch {
    return undefined;
  }
}

function isTaskTool(tool: unknown): boolean {
  try {
    return isObject(tool) && isObject(tool.handler) && "createTask" in tool.handler;
  } catch {
    return false;
  }
}

/** The span of one handler run: the tool's registered name (found by identity), description and arguments. */
function describeHandler(server: Record<PropertyKey, unknown>, tool: unknown, args: unknown): ToolCallStart {
  const start: ToolCallStart = { name: "tool", input: args, metadata: { mcpSide: "server" } };
  quietly(() => {
    const tools = server._registeredTools;
    if (isObject(tools)) for (const [name, registered] of Object.entries(tools)) if (registered === tool) start.name = name;
  });
  quietly(() => {
    if (isObject(tool) && typeof tool.description === "string") start.description = tool.description;
  });
  quietly(() => {
    const low = server.server as { getClientVersion?: () => { name?: unknown } | undefined } | undefined;
    start.metadata.mcpClient = low?.getClientVersion?.()?.name;
  });
  return start;
}
