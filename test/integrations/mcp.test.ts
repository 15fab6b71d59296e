import { inspect } from "node:util";
import { GoogleGenAI, mcpToTool } from "@google/genai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { instrumentMcpClient, instrumentMcpServer } from "../../src/integrations/mcp/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let logger: ReturnType<typeof configureForTest>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  logger = configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

/** Registers the test tools: each way the SDK offers (`registerTool`, `tool`), each kind of result. */
function addTools(server: McpServer): void {
  server.registerTool("lookup_order", { description: "Finds an order", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({
    content: [
      { type: "text", text: `order ${orderId} shipped` },
      { type: "text", text: "arrives Friday" },
    ],
  }));
  server.registerTool("weather", { description: "Current weather", inputSchema: { city: z.string() }, outputSchema: { tempC: z.number() } }, async ({ city }) => ({
    content: [{ type: "text", text: JSON.stringify({ tempC: 21 }) }],
    structuredContent: { tempC: city === "Paris" ? 21 : 0 },
  }));
  server.tool("boom", "Always throws", async () => {
    throw new Error("the warehouse is on fire");
  });
  server.tool("refuse", async () => ({ content: [{ type: "text", text: "not allowed for this user" }], isError: true }));
  server.tool("echo", { text: z.string() }, async ({ text }) => ({ content: [{ type: "text", text: `${text.length}:${text.slice(0, 10)}` }] }));
  // Results a careless handler may return: a cycle in structuredContent, a getter that throws.
  server.tool("cyclic_result", async () => {
    const structuredContent: Record<string, unknown> = { ok: true };
    structuredContent.self = structuredContent;
    return { content: [{ type: "text", text: "cyclic" }], structuredContent };
  });
  server.tool("throwing_result", async () => ({
    get content(): never {
      throw new Error("content getter");
    },
  }));
}

interface Pair {
  client: Client;
  server: McpServer;
  close(): Promise<void>;
}

/** A server and a client in one process over the SDK's InMemoryTransport, connected, tools registered. */
async function connectedPair(instrument: { client?: boolean; server?: boolean } = { client: true, server: true }): Promise<Pair> {
  const server = new McpServer({ name: "orders", version: "1.0.0" });
  addTools(server);
  const client = new Client({ name: "support-bot", version: "2.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  // After connect and registration: what the zero-code helper does on first use of an instance.
  if (instrument.server) expect(instrumentMcpServer(server)).toBe(server);
  if (instrument.client) expect(instrumentMcpClient(client)).toBe(client);
  return { client, server, close: () => client.close() };
}

let pair: Pair;
beforeAll(async () => {
  pair = await connectedPair();
});
afterAll(async () => {
  await pair.close();
});

/** Runs `fn` in an agent span and returns the spans the emulator stored for that trace. */
async function traced(fn: () => Promise<unknown>): Promise<{ root: StoredSpan; tools: StoredSpan[] }> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[uuid]!.spans;
  return { root: spans.find((s) => s.name === "agent")!, tools: spans.filter((s) => s.type === "tool") };
}

const side = (s: StoredSpan) => (s.metadata as Record<string, unknown> | undefined)?.mcpSide;

/** The client's and the server's span of one call (as each says, `mcpSide`): the server's is the client's child. */
function sides(tools: StoredSpan[], name: string): { client: StoredSpan; server: StoredSpan } {
  const named = tools.filter((s) => s.name === name);
  const client = named.find((s) => side(s) === "client")!;
  const server = named.find((s) => side(s) === "server")!;
  expect(named).toHaveLength(2);
  expect(server.parentUuid).toBe(client.uuid);
  return { client, server };
}

describe("instrumentMcpClient and instrumentMcpServer with the real @modelcontextprotocol/sdk", () => {
  it("sends the trace context in the request's _meta on a copy: the app's params object is never changed", async () => {
    let seen: unknown;
    const server = new McpServer({ name: "meta", version: "1.0.0" });
    server.registerTool("echo_meta", {}, async (extra) => {
      seen = extra._meta;
      return { content: [{ type: "text", text: "ok" }] };
    });
    const client = instrumentMcpClient(new Client({ name: "meta-app", version: "1.0.0" }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    const params = Object.freeze({ name: "echo_meta", arguments: {}, _meta: Object.freeze({ progressToken: 7 }) });
    await traced(() => client.callTool(params));
    expect(params).toEqual({ name: "echo_meta", arguments: {}, _meta: { progressToken: 7 } });
    expect(seen).toMatchObject({ progressToken: 7, traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/), tracestate: expect.stringContaining("evaltrace=") });
    // Outside any span the client's tool span is a root of its own: that is what is carried.
    seen = undefined;
    await client.callTool({ name: "echo_meta", arguments: {} });
    expect(seen).toMatchObject({ traceparent: expect.stringMatching(/^00-/) });
    // An uninstrumented client's request goes as the app wrote it.
    const plain = new Client({ name: "plain", version: "1.0.0" });
    const [c, d] = InMemoryTransport.createLinkedPair();
    const other = new McpServer({ name: "meta2", version: "1.0.0" });
    other.registerTool("echo_meta", {}, async (extra) => {
      seen = extra._meta;
      return { content: [{ type: "text", text: "ok" }] };
    });
    await other.connect(d);
    await plain.connect(c);
    seen = undefined;
    await traced(() => plain.callTool({ name: "echo_meta", arguments: {} }));
    expect(seen).toBeUndefined();
    await plain.close();
    await client.close();
  });

  it("records callTool as a tool span under the active span, and the server's handler as its child, in one trace", async () => {
    const { root, tools } = await traced(async () => {
      const r = await pair.client.callTool({ name: "lookup_order", arguments: { orderId: "A-1001" } });
      expect(r.content).toEqual([
        { type: "text", text: "order A-1001 shipped" },
        { type: "text", text: "arrives Friday" },
      ]);
    });
    const { client, server } = sides(tools, "lookup_order");
    expect(client).toMatchObject({
      type: "tool",
      parentUuid: root.uuid,
      status: "SUCCESS",
      integration: "MCP",
      input: { orderId: "A-1001" },
      output: "order A-1001 shipped\narrives Friday",
      metadata: { mcpSide: "client", mcpServer: "orders" },
    });
    expect(server).toMatchObject({
      type: "tool",
      status: "SUCCESS",
      integration: "MCP",
      description: "Finds an order",
      input: { orderId: "A-1001" },
      output: "order A-1001 shipped\narrives Friday",
      metadata: { mcpSide: "server", mcpClient: "support-bot" },
    });
  });

  it("keeps structuredContent beside the text", async () => {
    const { tools } = await traced(async () => {
      await pair.client.listTools(); // the client learns the output schema and validates against it
      const r = await pair.client.callTool({ name: "weather", arguments: { city: "Paris" } });
      expect(r.structuredContent).toEqual({ tempC: 21 });
    });
    const { client, server } = sides(tools, "weather");
    for (const span of [client, server]) expect(span).toMatchObject({ status: "SUCCESS", output: { text: '{"tempC":21}', structuredContent: { tempC: 21 } } });
  });

  it("records a handler that throws and a result with isError as ERRORED, on both sides; the client still gets the SDK's result", async () => {
    const { tools } = await traced(async () => {
      expect(await pair.client.callTool({ name: "boom" })).toEqual({ content: [{ type: "text", text: "the warehouse is on fire" }], isError: true });
      expect(await pair.client.callTool({ name: "refuse" })).toEqual({ content: [{ type: "text", text: "not allowed for this user" }], isError: true });
    });
    const boom = sides(tools, "boom");
    expect(boom.server).toMatchObject({ status: "ERRORED", error: "the warehouse is on fire", description: "Always throws" });
    expect(boom.client).toMatchObject({ status: "ERRORED", error: "the warehouse is on fire" });
    const refuse = sides(tools, "refuse");
    for (const span of [refuse.client, refuse.server]) expect(span).toMatchObject({ status: "ERRORED", error: "not allowed for this user" });
  });

  it("records a call the SDK rejects (a closed client) as ERRORED and rethrows the SDK's own error", async () => {
    const p = await connectedPair();
    await p.close();
    const raw = await connectedPair({});
    await raw.close();
    let seen: unknown;
    let rawSeen: unknown;
    const { tools } = await traced(async () => {
      seen = await p.client.callTool({ name: "lookup_order", arguments: { orderId: "A-1" } }).catch((e: unknown) => e);
      rawSeen = await raw.client.callTool({ name: "lookup_order", arguments: { orderId: "A-1" } }).catch((e: unknown) => e);
    });
    expect(seen).toBeInstanceOf(Error);
    expect((seen as Error).constructor).toBe((rawSeen as Error).constructor);
    expect((seen as Error).message).toBe((rawSeen as Error).message);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: "lookup_order", status: "ERRORED", error: (rawSeen as Error).message });
  });

  it("traces tools registered after instrumenting (tool() and registerTool()) and a handler swapped with update()", async () => {
    const late = await connectedPair();
    late.server.tool("late_tool", { n: z.number() }, async ({ n }) => ({ content: [{ type: "text", text: `n=${n}` }] }));
    const registered = late.server.registerTool("later_tool", { description: "Registered last" }, async () => ({ content: [{ type: "text", text: "v1" }] }));
    registered.update({ callback: async () => ({ content: [{ type: "text", text: "v2" }] }) });
    const { tools } = await traced(async () => {
      await late.client.callTool({ name: "late_tool", arguments: { n: 7 } });
      await late.client.callTool({ name: "later_tool" });
    });
    await late.close();
    expect(sides(tools, "late_tool").server).toMatchObject({ status: "SUCCESS", input: { n: 7 }, output: "n=7" });
    expect(sides(tools, "later_tool").server).toMatchObject({ status: "SUCCESS", output: "v2", description: "Registered last" });
  });

  it("is idempotent: instrumenting twice gives one span per call on each side, and the same objects", async () => {
    const twice = await connectedPair();
    const callTool = twice.client.callTool;
    expect(instrumentMcpClient(twice.client)).toBe(twice.client);
    expect(instrumentMcpServer(twice.server)).toBe(twice.server);
    expect(twice.client.callTool).toBe(callTool);
    expect([callTool.name, callTool.length]).toEqual([Client.prototype.callTool.name, Client.prototype.callTool.length]);
    const { tools } = await traced(async () => {
      await twice.client.callTool({ name: "lookup_order", arguments: { orderId: "A-2" } });
    });
    await twice.close();
    expect(tools).toHaveLength(2);
    sides(tools, "lookup_order");
  });

  it("leaves the client and the server as they read: own keys and util.inspect (hidden members too) equal an uninstrumented pair's (issue 42)", async () => {
    const readsAs = (o: object) => ({ keys: Reflect.ownKeys(o).map(String), inspect: inspect(o, { showHidden: true, depth: 1 }).replace(/\d+/g, "#") });
    const raw = await connectedPair({});
    const made = await connectedPair();
    for (const p of [raw, made]) await traced(() => p.client.callTool({ name: "lookup_order", arguments: { orderId: "A-3" } }));
    expect(readsAs(made.client)).toEqual(readsAs(raw.client));
    expect(readsAs(made.server)).toEqual(readsAs(raw.server));
    await raw.close();
    await made.close();
  });

  it("keeps concurrent calls apart: each server span is the child of its own call's client span", async () => {
    const ids = ["P-1", "P-2", "P-3", "P-4"];
    const { tools } = await traced(async () => {
      await Promise.all(ids.map((orderId) => pair.client.callTool({ name: "lookup_order", arguments: { orderId } })));
    });
    expect(tools).toHaveLength(8);
    for (const orderId of ids) {
      const mine = tools.filter((s) => (s.input as { orderId: string }).orderId === orderId);
      expect(mine).toHaveLength(2);
      sides(mine, "lookup_order");
      for (const span of mine) expect(span.output).toBe(`order ${orderId} shipped\narrives Friday`);
    }
  });

  it("starts a trace when no span is active: the client's span is the root, the server's its child", async () => {
    const marker = `root-${Date.now()}`;
    await pair.client.callTool({ name: "lookup_order", arguments: { orderId: marker } });
    expect((await flush()).ok).toBe(true);
    const trace = Object.values(dev.state.traces).find((t) => t.spans.some((s) => (s.input as { orderId?: string } | undefined)?.orderId === marker))!;
    expect(trace.spans).toHaveLength(2);
    const { client } = sides(trace.spans, "lookup_order");
    expect(client.parentUuid).toBeUndefined();
    expect(trace.fields.name).toBe("lookup_order");
  });

  it("on the server alone (client not instrumented), the handler's span joins the caller's trace in-process", async () => {
    const serverOnly = await connectedPair({ server: true });
    const { root, tools } = await traced(async () => {
      await serverOnly.client.callTool({ name: "lookup_order", arguments: { orderId: "A-3" } });
    });
    await serverOnly.close();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ parentUuid: root.uuid, metadata: { mcpClient: "support-bot" }, output: "order A-3 shipped\narrives Friday" });
  });
});

/**
 * js-genai's MCP sample (sdk-samples/mcp_client.ts): McpServers in the app's process, each linked to
 * a Client of the same name over InMemoryTransport, the clients handed to Gemini as tools. The two
 * tool spans of a call carry one name, and the peer keys name the other end (`mcpServer` on the
 * client's span, `mcpClient` on the server's): read as "this span is the client's", the server's
 * span was the parent of the client's (issue 31). Each span now says its side.
 */
async function printerPair(): Promise<Client> {
  const server = instrumentMcpServer(new McpServer({ name: "printer", version: "1.0.0" }));
  server.tool("print_message", { text: z.string() }, async ({ text }) => ({ content: [{ type: "text", text: `printed ${text}` }] }));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = instrumentMcpClient(new Client({ name: "printer", version: "1.0.0" }));
  await client.connect(clientSide);
  return client;
}

/** Every span of a trace has its parent in the trace (or is the root): no orphan. */
function expectNoOrphan(spans: StoredSpan[]): void {
  const ids = new Set(spans.map((s) => s.uuid));
  expect(spans.filter((s) => s.parentUuid !== undefined && !ids.has(s.parentUuid)).map((s) => s.name)).toEqual([]);
  expect(spans.filter((s) => s.parentUuid === undefined)).toHaveLength(1);
}

describe("a client and a server of one name in one process (js-genai's MCP sample)", () => {
  it("each span says its side: the client's callTool span is the parent of the server's, each once, none orphaned", async () => {
    const client = await printerPair();
    let uuid = "";
    await observe({ type: "agent", name: "printing" }, async () => {
      uuid = currentTraceUuid()!;
      await client.callTool({ name: "print_message", arguments: { text: "4" } });
    })();
    expect((await flush()).ok).toBe(true);
    const spans = dev.state.traces[uuid]!.spans;
    expectNoOrphan(spans);
    const tools = spans.filter((s) => s.type === "tool");
    expect(tools.map((s) => [s.name, side(s)]).sort()).toEqual([
      ["print_message", "client"],
      ["print_message", "server"],
    ]);
    const { client: callSpan, server: handlerSpan } = sides(tools, "print_message");
    expect(callSpan).toMatchObject({ parentUuid: spans.find((s) => s.name === "printing")!.uuid, metadata: { mcpSide: "client", mcpServer: "printer" }, output: "printed 4" });
    expect(handlerSpan).toMatchObject({ parentUuid: callSpan.uuid, metadata: { mcpSide: "server", mcpClient: "printer" }, output: "printed 4" });
    await client.close();
  });

  it("through Gemini's automatic function calling (mcpToTool): the run holds its model requests and the tool call, the MCP client's span under it and the server's under that", async () => {
    const fake = await startFakeGoogleGenAI();
    try {
      const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: fake.url } }));
      const client = await printerPair();
      let uuid = "";
      await observe({ type: "agent", name: "gemini-printing" }, async () => {
        uuid = currentTraceUuid()!;
        const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "print_message a math question", config: { tools: [mcpToTool(client)] } });
        expect(r.candidates?.[0]?.content?.parts?.[0]?.text).toBe("Orders ship in 2 days.");
      })();
      expect((await flush()).ok).toBe(true);
      const spans = [...dev.state.traces[uuid]!.spans].sort((a, b) => a.startTime.localeCompare(b.startTime));
      expectNoOrphan(spans);
      const run = spans.find((s) => s.name === "gemini.automaticFunctionCalling")!;
      const steps = spans.filter((s) => s.parentUuid === run.uuid);
      expect(steps.map((s) => [s.type, s.name, s.integration])).toEqual([
        ["llm", "gemini.generateContent", "Google GenAI"],
        ["tool", "print_message", "Google GenAI"],
        ["llm", "gemini.generateContent", "Google GenAI"],
      ]);
      expect(fake.requests).toHaveLength(2);
      const callSpan = spans.find((s) => side(s) === "client")!;
      const handlerSpan = spans.find((s) => side(s) === "server")!;
      expect(spans.filter((s) => side(s) !== undefined)).toHaveLength(2);
      expect(callSpan.parentUuid).toBe(steps[1]!.uuid);
      expect(handlerSpan.parentUuid).toBe(callSpan.uuid);
      expect(handlerSpan).toMatchObject({ input: { text: expect.any(String) }, output: expect.stringMatching(/^printed /) });
      await client.close();
    } finally {
      await fake.close();
    }
  });
});

describe("host safety: the instrumented pair answers exactly as the raw one", () => {
  const cyclic: Record<string, unknown> = { orderId: "A-9" };
  cyclic.self = cyclic;
  const huge = "x".repeat(2_000_000);
  const calls: [string, () => unknown][] = [
    ["a plain call", () => ({ name: "lookup_order", arguments: { orderId: "A-1" } })],
    ["a cyclic argument", () => ({ name: "lookup_order", arguments: cyclic })],
    ["a 2 MB string", () => ({ name: "echo", arguments: { text: huge } })],
    ["params whose name getter throws", () => ({ get name(): string { throw new Error("name getter"); }, arguments: {} })],
    ["arguments whose getter throws", () => ({ name: "lookup_order", get arguments(): never { throw new Error("arguments getter"); } })],
    ["an argument whose getter throws", () => ({ name: "lookup_order", arguments: { get orderId(): never { throw new Error("orderId getter"); } } })],
    ["an argument whose toJSON throws", () => ({ name: "lookup_order", arguments: { orderId: "A-4", extra: { toJSON() { throw new Error("toJSON"); } } } })],
    ["null params", () => null],
    ["an unknown tool", () => ({ name: "no_such_tool" })],
    ["invalid arguments", () => ({ name: "lookup_order", arguments: { orderId: 42 } })],
    ["a thrown handler", () => ({ name: "boom" })],
    ["a result with a cycle", () => ({ name: "cyclic_result" })],
    ["a result whose getter throws", () => ({ name: "throwing_result" })],
  ];

  let raw: Pair;
  beforeAll(async () => {
    raw = await connectedPair({});
  });
  afterAll(async () => {
    await raw.close();
  });

  /** What a call gave: the value, or the error's class and message; and whether it threw synchronously. */
  async function outcome(client: Client, params: unknown): Promise<unknown> {
    let promise: Promise<unknown>;
    try {
      promise = client.callTool(params as never);
    } catch (err) {
      return { threwSynchronously: String(err) };
    }
    expect(promise).toBeInstanceOf(Promise);
    return promise.then(
      (value) => ({ value }),
      (err: unknown) => ({ error: err instanceof Error ? [err.constructor.name, err.message] : err }),
    );
  }

  for (const [what, params] of calls) {
    it(`${what}: same result or error, no throw into the app, one span`, async () => {
      const expected = await outcome(raw.client, params());
      let got: unknown;
      const { tools } = await traced(async () => {
        got = await outcome(pair.client, params());
      });
      expect(got).toEqual(expected);
      const client = tools.filter((s) => side(s) === "client");
      expect(client).toHaveLength(1);
      const failed = "error" in (expected as object) || (expected as { value?: { isError?: boolean } }).value?.isError === true;
      expect(client[0]!.status).toBe(failed ? "ERRORED" : "SUCCESS");
      // Whatever the arguments, what was stored is bounded.
      expect(JSON.stringify(client[0]!.input ?? null).length).toBeLessThan(600_000);
    });
  }

  it("leaves a client or server it cannot patch as it is, and ignores what is not an MCP instance", () => {
    const frozen = Object.freeze({ callTool: async () => ({ content: [] }) });
    expect(instrumentMcpClient(frozen)).toBe(frozen);
    expect(frozen.callTool).toBe(frozen.callTool);
    const noTools = { registerTool: () => undefined };
    expect(instrumentMcpServer(noTools)).toBe(noTools);
    expect(Object.keys(noTools)).toEqual(["registerTool"]);
    expect(logger.lines.filter((l) => l.startsWith("warn: instrumentMcpServer failed and was skipped") && l.includes("the server has no executeToolHandler (an McpServer of an older @modelcontextprotocol/sdk); it is returned unchanged and not traced"))).toHaveLength(1);
    // The low-level Server has no tool handlers of its own: it is not an McpServer.
    const low = new Server({ name: "low", version: "1.0.0" }, { capabilities: { tools: {} } });
    expect(instrumentMcpServer(low as unknown as McpServer)).toBe(low);
    expect(Object.getOwnPropertySymbols(low)).toEqual([]);
    expect(logger.lines.some((l) => l.startsWith("debug: instrumentMcpServer: not an McpServer"))).toBe(true);
    const hostile = new Proxy({ callTool: async () => 1 }, {
      get() {
        throw new Error("hostile proxy");
      },
    });
    expect(instrumentMcpClient(hostile)).toBe(hostile);
  });
});
