/**
 * `evaltrace/mcp`: tool spans for the Model Context Protocol SDK (`@modelcontextprotocol/sdk`),
 * on the client side (`callTool`) and the server side (an `McpServer`'s tool handlers).
 */
export { instrumentMcpClient, type McpClientLike, traceEveryMcpClient } from "./client.js";
export { instrumentMcpServer, type McpServerLike, traceEveryMcpServer } from "./server.js";
