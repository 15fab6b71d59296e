import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeGoogleGenAI, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { instrumentMcpClient } from "../../src/integrations/mcp/index.js";
import { formats, load, packageRoot, runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { configureForTest } from "../helpers/sdk.js";

// The MCP integration across processes: a stdio server in a child process (the way MCP servers
// usually run), and `evaltrace/mcp` loaded from the built package in ESM and CommonJS apps.
// Needs the dist: `npx tsup`.

let dev: DevServer;
let google: FakeGoogleGenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  google = await startFakeGoogleGenAI();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await google.close();
  await dev.close();
});

/** An MCP server on stdio, itself instrumented and configured from the environment (as a deployed server would be). */
const stdioServer = `
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { configure } from "evaltrace";
import { instrumentMcpServer } from "evaltrace/mcp";
configure();
const server = instrumentMcpServer(new McpServer({ name: "stdio-orders", version: "1.0.0" }));
server.registerTool("lookup_order", { description: "Finds an order", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({ content: [{ type: "text", text: "order " + orderId + " shipped" }] }));
server.tool("boom", async () => { throw new Error("stdio tool failed"); });
await server.connect(new StdioServerTransport());
`;

/** The instrumented server above, in a child process of its own, reached over its stdio. */
function serverProcess(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--input-type=module", "-e", stdioServer],
    cwd: packageRoot,
    env: { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    stderr: "pipe",
  });
}

describe("MCP over stdio: the server in a child process", () => {
  it("traces the client's calls in the app's trace, and the server process's handlers under them (trace context in _meta)", async () => {
    const transport = serverProcess();
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = instrumentMcpClient(new Client({ name: "stdio-app", version: "1.0.0" }));
    await client.connect(transport);
    let uuid = "";
    await observe({ type: "agent", name: "stdio-agent" }, async () => {
      uuid = currentTraceUuid()!;
      expect(await client.callTool({ name: "lookup_order", arguments: { orderId: "S-1" } })).toEqual({ content: [{ type: "text", text: "order S-1 shipped" }] });
      expect(await client.callTool({ name: "boom" })).toEqual({ content: [{ type: "text", text: "stdio tool failed" }], isError: true });
    })();
    expect((await flush()).ok).toBe(true);
    // Closing ends the server's stdin: its process ends, and its exit hooks deliver what it traced.
    await client.close();
    expect(stderr).toBe("");

    const spans = dev.state.traces[uuid]!.spans;
    const root = spans.find((s) => s.name === "stdio-agent")!;
    // The client's spans (the server's, under them, may already be there too).
    const tools = spans.filter((s) => s.type === "tool" && (s.metadata as Record<string, unknown> | undefined)?.mcpServer === "stdio-orders");
    expect(tools.map((s) => [s.name, s.parentUuid, s.status])).toEqual([
      ["lookup_order", root.uuid, "SUCCESS"],
      ["boom", root.uuid, "ERRORED"],
    ]);
    expect(tools[0]).toMatchObject({ input: { orderId: "S-1" }, output: "order S-1 shipped", metadata: { mcpServer: "stdio-orders" }, integration: "MCP" });
    expect(tools[1]).toMatchObject({ error: "stdio tool failed" });

    // The client carried its span in each request's _meta (W3C traceparent and tracestate): the
    // server process records each handler in the app's trace, under the client's span (sent as
    // late updates of that trace), and no trace of its own.
    await expect
      .poll(() => dev.state.traces[uuid]!.spans.filter((s) => (s.metadata as Record<string, unknown> | undefined)?.mcpClient === "stdio-app").length)
      .toBe(2);
    const all = dev.state.traces[uuid]!.spans;
    const handler = (name: string) => all.find((s) => s.name === name && (s.metadata as Record<string, unknown> | undefined)?.mcpClient === "stdio-app")!;
    expect(handler("lookup_order")).toMatchObject({ parentUuid: tools[0]!.uuid, status: "SUCCESS", output: "order S-1 shipped", input: { orderId: "S-1" } });
    expect(handler("boom")).toMatchObject({ parentUuid: tools[1]!.uuid, status: "ERRORED", error: "stdio tool failed" });
    const serverRoots = Object.values(dev.state.traces).filter((t) => t !== dev.state.traces[uuid] && t.spans.some((s) => (s.metadata as Record<string, unknown> | undefined)?.mcpClient === "stdio-app"));
    expect(serverRoots).toHaveLength(0);
  });

  it("a request that carries no trace (an uninstrumented client) is a trace of its own on the server", async () => {
    const transport = serverProcess();
    const client = new Client({ name: "plain-app", version: "1.0.0" });
    await client.connect(transport);
    expect(await client.callTool({ name: "lookup_order", arguments: { orderId: "P-1" } })).toEqual({ content: [{ type: "text", text: "order P-1 shipped" }] });
    await client.close();
    await expect
      .poll(() => Object.values(dev.state.traces).filter((t) => t.spans.some((s) => (s.metadata as Record<string, unknown> | undefined)?.mcpClient === "plain-app")).length)
      .toBe(1);
    const trace = Object.values(dev.state.traces).find((t) => t.spans.some((s) => (s.metadata as Record<string, unknown> | undefined)?.mcpClient === "plain-app"))!;
    expect(trace.spans.map((s: StoredSpan) => [s.name, s.parentUuid, s.status])).toEqual([["lookup_order", undefined, "SUCCESS"]]);
  });
});

describe("evaltrace/mcp from the built package", () => {
  for (const format of formats) {
    it(`loads in ${format === "esm" ? "an ESM" : "a CommonJS"} app and traces an in-process client and server`, async () => {
      const name = `mcp-app-${format}`;
      const child = runChild(
        format,
        `${load(format, "evaltrace", ["configure", "observe", "flush"])}
         ${load(format, "evaltrace/mcp", ["instrumentMcpClient", "instrumentMcpServer"])}
         ${load(format, "@modelcontextprotocol/sdk/client/index.js", ["Client"])}
         ${load(format, "@modelcontextprotocol/sdk/server/mcp.js", ["McpServer"])}
         ${load(format, "@modelcontextprotocol/sdk/inMemory.js", ["InMemoryTransport"])}
         ${load(format, "zod", ["z"])}
         configure({ apiKey: process.env.KEY, baseUrl: process.env.URL, registerExitHooks: false });
         const server = instrumentMcpServer(new McpServer({ name: "orders", version: "1.0.0" }));
         server.registerTool("lookup_order", { inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({ content: [{ type: "text", text: "order " + orderId + " shipped" }] }));
         const client = instrumentMcpClient(new Client({ name: "app", version: "1.0.0" }));
         const [a, b] = InMemoryTransport.createLinkedPair();
         await server.connect(b);
         await client.connect(a);
         const r = await observe({ type: "agent", name: "${name}" }, () => client.callTool({ name: "lookup_order", arguments: { orderId: "C-1" } }))();
         const f = await flush();
         await client.close();
         console.log("RESULT " + JSON.stringify({ text: r.content[0].text, ok: f.ok }));`,
        { KEY: dev.projectKey, URL: dev.url },
      );
      const done = await child.finished;
      expect(done.stderr).toBe("");
      expect(done.stdout).toContain('RESULT {"text":"order C-1 shipped","ok":true}');
      const trace = Object.values(dev.state.traces).find((t) => t.fields.name === name)!;
      const root = trace.spans.find((s) => s.name === name)!;
      const client = trace.spans.find((s) => s.type === "tool" && s.parentUuid === root.uuid)!;
      const server = trace.spans.find((s) => s.type === "tool" && s.parentUuid === client.uuid)!;
      expect(client).toMatchObject({ name: "lookup_order", input: { orderId: "C-1" }, output: "order C-1 shipped", metadata: { mcpServer: "orders" } });
      expect(server).toMatchObject({ name: "lookup_order", input: { orderId: "C-1" }, output: "order C-1 shipped", metadata: { mcpClient: "app" } });
    });
  }
});

// Zero-code rides on Node's module hooks; Bun has neither (there an app calls the wrap functions).
const onBun = !runsHere(!("Bun" in globalThis), "test/integrations/mcp-process.test.ts (zero-code)", "zero-code needs Node's module hooks, which Bun does not have");

describe.skipIf(onBun)("zero-code (evaltrace/auto): js-genai's MCP sample, servers and clients in the app's process", () => {
  for (const format of formats) {
    it(`${format === "esm" ? "ESM with --import" : "CommonJS with --require"}: one trace, the run's model requests as llm spans, each tool call once per side, client over server, none orphaned`, async () => {
      const marker = `genai-mcp-${format}`;
      const lines = (names: string, spec: string) => (format === "esm" ? `import { ${names} } from "${spec}";` : `const { ${names} } = require("${spec}");`);
      // sdk-samples/mcp_client.ts of googleapis/js-genai, against the fakes: the clients handed over
      // with mcpToTool (the SDK's current way), the sample's connect() left unawaited as it is there.
      const source = `${lines("GoogleGenAI, mcpToTool", "@google/genai")}
${lines("Client", "@modelcontextprotocol/sdk/client/index.js")}
${lines("InMemoryTransport", "@modelcontextprotocol/sdk/inMemory.js")}
${lines("McpServer", "@modelcontextprotocol/sdk/server/mcp.js")}
${lines("z", "zod")}
async function spinUp(name, register) {
  const server = new McpServer({ name, version: "1.0.0" });
  register(server);
  const transports = InMemoryTransport.createLinkedPair();
  await server.connect(transports[0]);
  const client = new Client({ name, version: "1.0.0" });
  client.connect(transports[1]);
  return client;
}
const printing = await spinUp("printer", (s) => s.tool("print_message", { text: z.string(), color: z.string() }, async ({ text }) => ({ content: [{ type: "text", text: "printed " + text }] })));
const beeping = await spinUp("beeper", (s) => s.tool("beep", async () => ({ content: [] })));
const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: process.env.FAKE_GOOGLE } });
const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "${marker}: print_message a math question, then beep", config: { tools: [mcpToTool(printing), mcpToTool(beeping)] } });
console.log("RESULT " + r.candidates[0].content.parts[0].text);
await printing.close();
await beeping.close();`;
      const before = google.requests.length;
      const child = runChild(format, source, {
        EVALTRACE_API_KEY: dev.projectKey,
        EVALTRACE_BASE_URL: dev.url,
        FAKE_GOOGLE: google.url,
        NODE_OPTIONS: format === "esm" ? "--import evaltrace/auto" : "--require evaltrace/auto",
      });
      const done = await child.finished;
      expect(done.stderr).toBe("");
      expect(done.stdout).toBe("RESULT Orders ship in 2 days.\n");
      const served = google.requests.length - before;
      expect(served).toBe(2);
      const traces = Object.values(dev.state.traces).filter((t) => JSON.stringify(t.spans).includes(marker));
      expect(traces).toHaveLength(1);
      const spans = [...traces[0]!.spans].sort((a, b) => a.startTime.localeCompare(b.startTime));
      const ids = new Set(spans.map((s) => s.uuid));
      expect(spans.filter((s) => s.parentUuid !== undefined && !ids.has(s.parentUuid))).toEqual([]);
      const run = spans.find((s) => s.parentUuid === undefined)!;
      expect(run).toMatchObject({ name: "gemini.automaticFunctionCalling", type: "agent", status: "SUCCESS", output: "Orders ship in 2 days.", availableTools: ["print_message", "beep"] });
      const steps = spans.filter((s) => s.parentUuid === run.uuid);
      expect(steps.map((s) => [s.type, s.name])).toEqual([
        ["llm", "gemini.generateContent"],
        ["tool", "print_message"],
        ["tool", "beep"],
        ["llm", "gemini.generateContent"],
      ]);
      expect(steps.filter((s) => s.type === "llm")).toHaveLength(served);
      expect((steps[0]!.toolsCalled as { name: string }[] | undefined)?.map((c) => c.name)).toEqual(["print_message", "beep"]);
      const side = (s: StoredSpan) => (s.metadata as Record<string, unknown> | undefined)?.mcpSide;
      for (const [call, peer] of [
        [steps[1]!, "printer"],
        [steps[2]!, "beeper"],
      ] as const) {
        const clientSpans = spans.filter((s) => s.parentUuid === call.uuid);
        expect(clientSpans.map((s) => [s.name, side(s), (s.metadata as Record<string, unknown>).mcpServer])).toEqual([[call.name, "client", peer]]);
        const serverSpans = spans.filter((s) => s.parentUuid === clientSpans[0]!.uuid);
        expect(serverSpans.map((s) => [s.name, side(s), (s.metadata as Record<string, unknown>).mcpClient])).toEqual([[call.name, "server", peer]]);
      }
      expect(spans.filter((s) => side(s) !== undefined)).toHaveLength(4);
    });
  }
});
