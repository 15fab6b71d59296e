import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/fakes/index.js";
import { type Finished, packageRoot } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code for the Claude Agent SDK (an ESM-only package): `node --import evaltrace/auto` wraps
// its `query` export; a CommonJS app reaches it with import(). Each app spawns the real Claude
// Code binary, offline, against the fake Anthropic API (few tests, generous timeouts).
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/claude-agent-sdk.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap query with wrapQuery there)");
const TIMEOUT = 120_000;

let dev: DevServer;
let fake: FakeAnthropic;
let home: string;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "evaltrace-claude-auto-"));
});
afterAll(async () => {
  await fake.close();
  await dev.close();
  // A closed query's binary may still be writing its session files for a moment.
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

function runApp(format: "esm" | "cjs", source: string, env: Record<string, string> = {}): Promise<Finished> {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const args = format === "esm" ? ["--import", "evaltrace/auto", "--input-type=module", "-e", body] : ["-r", "evaltrace/auto", "-e", body];
  const child = spawn(process.execPath, args, {
    cwd: packageRoot,
    env: { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_ANTHROPIC: fake.url, APP_HOME: home, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The app: one query with an SDK MCP tool, read to its end, offline. */
const app = (load: string, marker: string) => `${load}
const lookup = tool("lookup_order", "Looks up an order", { orderId: z.string() }, async (a) => ({ content: [{ type: "text", text: "Order " + a.orderId + ": shipped" }] }));
const home = process.env.APP_HOME;
const options = {
  cwd: home, settingSources: [], maxTurns: 4, tools: [], allowedTools: ["mcp__shop__lookup_order"],
  mcpServers: { shop: createSdkMcpServer({ name: "shop", version: "1.0.0", tools: [lookup] }) },
  env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: home + "/.claude", ANTHROPIC_BASE_URL: process.env.FAKE_ANTHROPIC, ANTHROPIC_API_KEY: "sk-ant-test", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" },
};
for await (const m of query({ prompt: "${marker}: where is my order? use mcp__shop__lookup_order", options })) if (m.type === "result") console.log("result:", m.result);`;

const tracesOf = (marker: string): StoredSpan[][] =>
  Object.values(dev.state.traces)
    .map((t) => t.spans)
    .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker)));

describe.skipIf(onBun)("zero-code Claude Agent SDK", () => {
  it.each([
    ["esm", 'import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk"; import { z } from "zod";'],
    ["cjs", 'const { query, tool, createSdkMcpServer } = await import("@anthropic-ai/claude-agent-sdk"); const { z } = require("zod");'],
  ] as const)(
    "%s: a query with an SDK MCP tool is one trace: the agent span, two llm spans and the tool span",
    async (format, load) => {
      const marker = `cas-${format}`;
      const f = await runApp(format, app(load, marker));
      expect(f.stderr, f.stderr).toBe("");
      expect(f.code).toBe(0);
      expect(f.stdout).toContain("result: Orders ship in 2 days.");
      const traces = tracesOf(marker);
      expect(traces).toHaveLength(1);
      const spans = traces[0]!;
      const agent = spans.find((s) => s.type === "agent")!;
      expect(agent).toMatchObject({ name: "Claude Agent", integration: "Claude Agent SDK", status: "SUCCESS", output: "Orders ship in 2 days." });
      expect(spans.filter((s) => s.type === "llm")).toHaveLength(2);
      expect(spans.filter((s) => s.type === "tool" && s.integration === "Claude Agent SDK")).toMatchObject([{ name: "mcp__shop__lookup_order", parentUuid: agent.uuid, output: "Order A-1001: shipped" }]);
    },
    TIMEOUT,
  );

  it("the app's own wrapQuery on the hooked query returns it unchanged (one wrapper), from the main entry and /core alike", async () => {
    const src = `import { query } from "@anthropic-ai/claude-agent-sdk";
import { query as coreQuery } from "@anthropic-ai/claude-agent-sdk/core";
import { wrapQuery } from "evaltrace/claude-agent-sdk";
console.log(JSON.stringify({ main: wrapQuery(query) === query, core: wrapQuery(coreQuery) === coreQuery }));`;
    const f = await runApp("esm", src, { EVALTRACE_TRACING_ENABLED: "false" });
    expect(f.stderr, f.stderr).toBe("");
    expect(JSON.parse(f.stdout.trim())).toEqual({ main: true, core: true });
  });

  it(
    "EVALTRACE_DISABLE_INSTRUMENTATIONS=claude-agent-sdk: the query runs untraced",
    async () => {
      const marker = "cas-off";
      const f = await runApp("esm", app('import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk"; import { z } from "zod";', marker), { EVALTRACE_DISABLE_INSTRUMENTATIONS: "claude-agent-sdk" });
      expect(f.stderr, f.stderr).toBe("");
      expect(f.stdout).toContain("result: Orders ship in 2 days.");
      expect(tracesOf(marker).filter((spans) => spans.some((s) => s.integration === "Claude Agent SDK"))).toHaveLength(0);
    },
    TIMEOUT,
  );
});
