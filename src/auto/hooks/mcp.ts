import type { LibraryHook } from "../instrumentation.js";
import { loadOwnEntry } from "../load.js";
import { isOn } from "../state.js";

/** What `evaltrace/mcp` exports (written beside this; typed here so the hook needs none of its imports). */
type McpEntry = { traceEveryMcpClient?: (Client: unknown, on: () => boolean) => void; traceEveryMcpServer?: (McpServer: unknown, on: () => boolean) => void };

let entry: McpEntry | undefined | null;
const mcpEntry = (): McpEntry | undefined => {
  if (entry === undefined) entry = loadOwnEntry<McpEntry>("mcp") ?? null;
  return entry ?? undefined;
};

/** Every client's `callTool` is a tool span while MCP is instrumented (hooked on `Client`'s class). */
const onClient = (exports: Record<string, unknown>) => {
  if (typeof exports.Client === "function") mcpEntry()?.traceEveryMcpClient?.(exports.Client, () => isOn("mcp"));
};

/** Every server's tool handler runs in a tool span while MCP is instrumented (hooked on `McpServer`'s class). */
const onServer = (exports: Record<string, unknown>) => {
  if (typeof exports.McpServer === "function") mcpEntry()?.traceEveryMcpServer?.(exports.McpServer, () => isOn("mcp"));
};

/** `@modelcontextprotocol/sdk`: clients' `callTool` and servers' tool handlers as tool spans (through `evaltrace/mcp`). */
export const mcpHook: LibraryHook = {
  library: "mcp",
  packageName: "@modelcontextprotocol/sdk",
  versions: [">=1"],
  requireFilesByName: true,
  files: [
    { path: "@modelcontextprotocol/sdk/dist/cjs/client/index.js", onLoad: onClient },
    { path: "@modelcontextprotocol/sdk/dist/esm/client/index.js", onLoad: onClient },
    { path: "@modelcontextprotocol/sdk/dist/cjs/server/mcp.js", onLoad: onServer },
    { path: "@modelcontextprotocol/sdk/dist/esm/server/mcp.js", onLoad: onServer },
  ],
};
