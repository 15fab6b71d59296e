// The MCP integration, offline: a real @modelcontextprotocol/sdk server and client in one process
// (over the SDK's InMemoryTransport) and the local emulator.   npm run build && node examples/mcp.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { configure, flush, observe, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { instrumentMcpClient, instrumentMcpServer } from "evaltrace/mcp";
import { z } from "zod";
import { printTraces } from "./print-traces.mjs";

const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line each instruments the server's tool handlers and the client's callTool (in place).
const server = instrumentMcpServer(new McpServer({ name: "orders", version: "1.0.0" }));
server.registerTool("lookup_order", { description: "Finds an order", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({
  content: [{ type: "text", text: `order ${orderId} shipped yesterday` }],
}));
server.registerTool("refund_order", { description: "Refunds an order", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({
  content: [{ type: "text", text: `order ${orderId} cannot be refunded after shipping` }],
  isError: true,
}));
const client = instrumentMcpClient(new Client({ name: "support-bot", version: "1.0.0" }));
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.connect(serverTransport);
await client.connect(clientTransport);

const answer = observe({ type: "agent", name: "support-agent" }, async (orderId) => {
  const found = await client.callTool({ name: "lookup_order", arguments: { orderId } });
  // A tool that answers isError: the call resolves as usual, both spans are ERRORED.
  const refund = await client.callTool({ name: "refund_order", arguments: { orderId } });
  return `${found.content[0].text}; ${refund.content[0].text}`;
});
console.log(await answer("A-1001"));
await flush();
printTraces(dev);
for (const trace of Object.values(dev.state.traces))
  for (const s of trace.spans.filter((s) => s.type === "tool")) console.log(`${s.name} (${s.metadata?.mcpServer ? "client" : "server"}): ${s.status} ${JSON.stringify(s.input)} -> ${JSON.stringify(s.output ?? s.error)}`);
await client.close();
await shutdown();
await dev.close();
