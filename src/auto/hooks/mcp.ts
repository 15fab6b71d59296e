import type { LibraryHook } from "../instrumentation.js";
import { wrapOnFirstUse } from "../first-use.js";
import { loadOwnEntry } from "../load.js";
import { isOn } from "../state.js";

/** What `evaltrace/mcp` exports (written beside this; typed here so the hook needs none of its imports). */
type McpEntry = { instrumentMcpClient?: (client: object) => unknown; instrumentMcpServer?: (server: object) => unknown };

let entry: McpEntry | undefined | null;
const mcpEntry = (): McpEntry | undefined => {
  if (entry === undefined) entry = loadOwnEntry<McpEntry>("mcp") ?? null;
  return entry ?? undefined;
};

/** A client, on its first tool call, is instrumented by `instrumentMcpClient`. */
const onClient = (exports: Record<string, unknown>) => {
  const Client = exports.Client as { prototype?: unknown } | undefined;
  if (typeof Client !== "function") return;
  wrapOnFirstUse(Client.prototype, ["callTool"], (client) => {
    if (isOn("mcp")) mcpEntry()?.instrumentMcpClient?.(client);
  });
};

/**
 * A server is instrumented by `instrumentMcpServer` when its first tool is registered (before any
 * request can reach a handler): `McpServer.tool` / `registerTool`.
 */
const onServer = (exports: Record<string, unknown>) => {
  const McpServer = exports.McpServer as { prototype?: unknown } | undefined;
  if (typeof McpServer !== "function") return;
  wrapOnFirstUse(McpServer.prototype, ["tool", "registerTool"], (server) => {
    if (isOn("mcp")) mcpEntry()?.instrumentMcpServer?.(server);
  });
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
