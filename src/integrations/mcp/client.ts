import { injectTraceHeaders } from "../../tracing/propagation.js";
import { processWide } from "../../process-wide.js";
import { hookClassMethod, hookMethodOn } from "../kit/class-method.js";
import type { Fn } from "../kit/prototype-method.js";
import { isObject, quietly } from "../kit/model-call.js";
import { type ToolCallStart, traceToolCall } from "./tool-span.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** The part of an MCP `Client` (`@modelcontextprotocol/sdk/client`) that {@link instrumentMcpClient} instruments. */
export interface McpClientLike {
  callTool(...args: never[]): Promise<unknown>;
}

/**
 * Which clients are traced (shared by the ESM and CommonJS copies of evaltrace): those
 * instrumented, and every one while `every()` says so (zero-code). The client objects themselves
 * are left as they are.
 */
const traced = processWide("mcp.clients", () => ({ instances: new WeakSet<object>(), every: (): boolean => false }));

/** `callTool` of `Client`'s class, hooked: a traced client's call is a tool span. */
const hookCallTool = (original: Fn) =>
  function callTool(this: unknown, ...args: unknown[]) {
    if (!isObject(this) || !(traced.instances.has(this) || traced.every())) return original.apply(this, args);
    return traceToolCall(
      () => describeCall(this, args[0]),
      () => original.apply(this, withTraceContext(args)),
    );
  };

/** Every client of the SDK whose `Client` class this is is traced while `on()` says so (what zero-code does). */
export function traceEveryMcpClient(Client: unknown, on: () => boolean): void {
  const proto = typeof Client === "function" ? (Client as { prototype?: unknown }).prototype : undefined;
  if (!isObject(proto)) return;
  traced.every = on;
  if (!hookMethodOn(proto, "callTool", hookCallTool)) reportUnexpectedClient("evaltrace/auto (mcp)", "Client has no callTool method of its class");
}


/**
 * Instruments an MCP client in place and returns it: every `callTool` becomes a tool span named
 * after the tool, with the arguments as input and the result as output (the text content joined;
 * `{ text, structuredContent }` when the tool returns structured content), and the metadata
 * `{ mcpSide: "client", mcpServer: <the server's name> }`. A result with
 * `isError: true`, and a call that rejects, are ERRORED spans. The span is a child of the active
 * span (an `observe()` function, an integration's span), or the root of a new trace; an
 * instrumented server in the same process (see `instrumentMcpServer`) records its handler under it.
 *
 * The client stays the app's own object: the SDK's promise, its result and its errors are
 * exactly what the raw client gives. Instrumenting twice is instrumenting once; a client already
 * connected is instrumented as well.
 *
 * @example
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { instrumentMcpClient } from "evaltrace/mcp";
 * const client = instrumentMcpClient(new Client({ name: "support-bot", version: "1.0.0" }));
 */
export function instrumentMcpClient<T extends McpClientLike>(client: T): T {
  try {
    const target = client as unknown as Record<PropertyKey, unknown>;
    if (traced.instances.has(target)) return client;
    if (typeof target.callTool !== "function") {
      reportUnexpectedClient("instrumentMcpClient", "the client has no callTool");
      return client;
    }
    // Hooked on Client's class, once: the client object keeps its own properties.
    if (!hookClassMethod(client, "callTool", hookCallTool)) reportUnexpectedClient("instrumentMcpClient", "its callTool is not Client's class method");
    else traced.instances.add(target);
  } catch (err) {
    // A client we cannot patch (frozen, a proxy that refuses) is left as it is.
    reportWrapFailure("instrumentMcpClient", err);
  }
  return client;
}

/**
 * The call's arguments with the current span in the request's `_meta` (`traceparent`,
 * `tracestate`: W3C Trace Context, as MCP's `_meta` carries it), so that an instrumented server
 * in another process records its handler in this trace. The app's params object is not changed
 * (a copy goes to the SDK); params that are not a plain object, a `_meta` that is not one, or
 * no span to carry, leave the arguments as they are.
 */
function withTraceContext(args: unknown[]): unknown[] {
  try {
    const params = args[0];
    if (!isObject(params) || Object.getPrototypeOf(params) !== Object.prototype) return args;
    const meta = params._meta;
    if (meta !== undefined && !isObject(meta)) return args;
    const headers = injectTraceHeaders();
    if (headers.traceparent === undefined) return args;
    return [{ ...params, _meta: { ...meta, ...headers } }, ...args.slice(1)];
  } catch {
    return args;
  }
}

/** The span of one `callTool(params)`: each field read on its own, so one hostile getter costs only itself. */
function describeCall(client: Record<PropertyKey, unknown>, params: unknown): ToolCallStart {
  const p = params !== null && typeof params === "object" ? (params as Record<PropertyKey, unknown>) : {};
  const name = read(() => p.name);
  const start: ToolCallStart = { name: typeof name === "string" && name ? name : "tool", input: read(() => p.arguments), metadata: { mcpSide: "client" } };
  quietly(() => {
    const server = (client.getServerVersion as (() => { name?: unknown } | undefined) | undefined)?.call(client);
    start.metadata.mcpServer = server?.name;
  });
  return start;
}

function read(get: () => unknown): unknown {
  try {
    return get();
  } catch {
    return undefined;
  }
}
