import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sdk3 from "@anthropic-ai/claude-agent-sdk";
import type { SpawnedProcess, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import * as sdk2 from "claude-agent-sdk-v2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapClaudeAgentSdk, wrapQuery } from "../../src/integrations/claude-agent-sdk/index.js";
import { configureForTest } from "../helpers/sdk.js";

// The real Claude Agent SDK spawns its bundled Claude Code binary (a 200+ MB executable) for each
// query(); the binary talks to the fake Anthropic server, offline (ANTHROPIC_BASE_URL), with a
// home and config directory of its own so that nothing of this machine's setup leaks in. Each
// test starts one binary: few tests, generous timeouts.
const TIMEOUT = 120_000;

let dev: DevServer;
let fake: FakeAnthropic;
let home: string;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
  configureForTest(dev.url, dev.projectKey);
  home = mkdtempSync(join(tmpdir(), "evaltrace-claude-agent-"));
});
afterAll(async () => {
  // Every binary this file started has exited (given time to end as it does after a break), or is ended here.
  await Promise.all(
    spawned.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
  await shutdown(0);
  await fake.close();
  await dev.close();
  // A closed query's binary may still be writing its session files for a moment.
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

/** The Claude Code processes the SDK starts, spawned as its default does, kept to be sure each has ended. */
const spawned: ChildProcess[] = [];
function spawnTracked(options: SpawnOptions): SpawnedProcess {
  const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env, signal: options.signal, stdio: ["pipe", "pipe", "ignore"] as const });
  child.on("error", () => {
    // An abort through the SDK's signal: the SDK sees the process end.
  });
  spawned.push(child);
  return child;
}

/** Options that keep the binary offline, on the fake, with only the tools a test gives it. */
const offline = () => ({
  spawnClaudeCodeProcess: spawnTracked,
  cwd: home,
  settingSources: [],
  maxTurns: 6,
  env: {
    PATH: process.env.PATH ?? "",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
  },
});

type Sdk = typeof sdk3;
const versions: [string, Sdk][] = [
  ["0.3", sdk3],
  ["0.2", sdk2 as unknown as Sdk],
];

/** An SDK MCP server with one tool, `mcp__shop__lookup_order`. */
function shop(sdk: Sdk) {
  const lookup = sdk.tool("lookup_order", "Looks up an order", { orderId: z.string() }, async (args) => ({ content: [{ type: "text" as const, text: `Order ${args.orderId}: shipped` }] }));
  return sdk.createSdkMcpServer({ name: "shop", version: "1.0.0", tools: [lookup] });
}

/** Runs `fn` in a root `observe()` span; returns the spans the emulator stored for that trace, and the root. */
async function traced(fn: () => Promise<void>): Promise<{ root: StoredSpan; spans: StoredSpan[] }> {
  let uuid = "";
  await observe({ name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[uuid]!.spans;
  return { root: spans.find((s) => s.name === "app")!, spans };
}

const byType = (spans: StoredSpan[], type: string) => spans.filter((s) => s.type === type);
const meta = (s: StoredSpan | undefined) => (s?.metadata ?? {}) as Record<string, unknown>;

describe.each(versions)("Claude Agent SDK %s, the real binary against the fake Anthropic API", (_version, sdk) => {
  it(
    "a plain answer: the app gets the SDK's own Query and messages; one agent span (session, prompt, result, cost, turns) with one llm span",
    async () => {
      const query = wrapQuery(sdk.query);
      const seen: { type: string; subtype?: string }[] = [];
      let result: unknown;
      const { root, spans } = await traced(async () => {
        const q = query({ prompt: "When do orders ship? no tool", options: { ...offline(), tools: [] } });
        // The SDK's own object: its methods are the SDK's, untouched.
        expect(q.interrupt).toBe(Object.getPrototypeOf(q).interrupt);
        // Nothing of ours on it (issue 42): no own next/return/throw/iterator, no marker.
        const ours = (keys: PropertyKey[]) => keys.filter((k) => ["next", "return", "throw"].includes(String(k)) || k === Symbol.asyncIterator || String(k).includes("evaltrace"));
        expect(ours(Reflect.ownKeys(q))).toEqual([]);
        for await (const m of q) {
          seen.push({ type: m.type, ...("subtype" in m ? { subtype: m.subtype as string } : {}) });
          if (m.type === "result") result = m;
        }
        expect(ours(Reflect.ownKeys(q))).toEqual([]);
      });
      expect(seen[0]).toEqual({ type: "system", subtype: "init" });
      expect(seen.filter((m) => m.type === "assistant")).toHaveLength(1);
      expect(seen.at(-1)).toEqual({ type: "result", subtype: "success" });
      const r = result as { session_id: string; total_cost_usd: number; num_turns: number };
      const [agent] = byType(spans, "agent");
      expect(agent).toMatchObject({ name: "Claude Agent", parentUuid: root.uuid, status: "SUCCESS", integration: "Claude Agent SDK", input: "When do orders ship? no tool", output: "Orders ship in 2 days." });
      expect(meta(agent)).toMatchObject({ sessionId: r.session_id, totalCostUsd: r.total_cost_usd, numTurns: r.num_turns, resultSubtype: "success" });
      expect(meta(agent).inputTokens).toBeGreaterThan(0);
      const llm = byType(spans, "llm");
      expect(llm).toHaveLength(1);
      expect(llm[0]).toMatchObject({ parentUuid: agent!.uuid, status: "SUCCESS", output: "Orders ship in 2 days.", input: [{ role: "user", content: "When do orders ship? no tool" }] });
      expect(llm[0]!.model).toMatch(/^claude-/);
      expect(llm[0]!.inputTokenCount).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "an SDK MCP tool, with the prompt streamed as an AsyncIterable: llm (tool_use) → tool span with input and output → llm (answer)",
    async () => {
      const { query } = wrapClaudeAgentSdk(sdk);
      async function* prompt() {
        yield { type: "user" as const, message: { role: "user" as const, content: "Where is my order? use mcp__shop__lookup_order" }, parent_tool_use_id: null, session_id: "" };
      }
      const types: string[] = [];
      const { spans } = await traced(async () => {
        for await (const m of query({ prompt: prompt(), options: { ...offline(), tools: [], mcpServers: { shop: shop(sdk) }, allowedTools: ["mcp__shop__lookup_order"] } })) types.push(m.type);
      });
      expect(types).toContain("result");
      const [agent] = byType(spans, "agent");
      expect(agent).toMatchObject({ status: "SUCCESS", input: "Where is my order? use mcp__shop__lookup_order", output: "Orders ship in 2 days.", availableTools: ["mcp__shop__lookup_order"] });
      const llm = byType(spans, "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
      expect(llm).toHaveLength(2);
      expect(llm[0]).toMatchObject({ parentUuid: agent!.uuid, toolsCalled: [{ name: "mcp__shop__lookup_order", inputParameters: { orderId: "A-1001" } }], output: 'mcp__shop__lookup_order({"orderId":"A-1001"})' });
      const [tool] = byType(spans, "tool");
      expect(tool).toMatchObject({ name: "mcp__shop__lookup_order", parentUuid: agent!.uuid, status: "SUCCESS", input: { orderId: "A-1001" }, output: "Order A-1001: shipped" });
      expect(meta(tool).toolUseId).toBe((meta(llm[0]).toolUseIds as string[])[0]);
      expect(llm[1]).toMatchObject({ output: "Orders ship in 2 days.", input: [{ role: "tool", content: "Order A-1001: shipped" }] });
    },
    TIMEOUT,
  );

  it(
    "a subagent (the agents option, the Agent tool): an agent span under the Agent tool's span, holding its own llm and tool spans",
    async () => {
      const query = wrapQuery(sdk.query);
      fake.script({ toolCalls: [{ name: "Agent", input: { description: "Ask the shipper", prompt: "Where is order A-1001? use mcp__shop__lookup_order", subagent_type: "shipper", run_in_background: false } }] });
      const { spans } = await traced(async () => {
        const options = {
          ...offline(),
          tools: ["Task", "Agent"],
          mcpServers: { shop: shop(sdk) },
          allowedTools: ["Task", "Agent", "mcp__shop__lookup_order"],
          agents: { shipper: { description: "Answers shipping questions", prompt: "You answer shipping questions.", tools: ["mcp__shop__lookup_order"] } },
        };
        for await (const _ of query({ prompt: "Ask the shipper about my order", options })) {
          // read to the end
        }
      });
      const agents = byType(spans, "agent");
      expect(agents).toHaveLength(2);
      const main = agents.find((s) => s.name === "Claude Agent")!;
      const sub = agents.find((s) => s.name === "shipper")!;
      const agentTool = spans.find((s) => s.type === "tool" && s.name === "Agent")!;
      expect(agentTool).toMatchObject({ parentUuid: main.uuid, status: "SUCCESS", input: { subagent_type: "shipper" } });
      expect(sub).toMatchObject({ parentUuid: agentTool.uuid, status: "SUCCESS", input: "Where is order A-1001? use mcp__shop__lookup_order" });
      const lookup = spans.find((s) => s.type === "tool" && s.name === "mcp__shop__lookup_order")!;
      expect(lookup).toMatchObject({ parentUuid: sub.uuid, status: "SUCCESS", output: "Order A-1001: shipped" });
      const subTurns = byType(spans, "llm")
        .filter((s) => s.parentUuid === sub.uuid)
        .sort((a, b) => a.startTime.localeCompare(b.startTime));
      expect(subTurns.length).toBeGreaterThanOrEqual(1);
      expect(subTurns[0]).toMatchObject({ input: [{ role: "user", content: "Where is order A-1001? use mcp__shop__lookup_order" }], toolsCalled: [{ name: "mcp__shop__lookup_order" }] });
      expect(byType(spans, "llm").filter((s) => s.parentUuid === main.uuid)).toHaveLength(2);
      expect(main).toMatchObject({ status: "SUCCESS", output: "Orders ship in 2 days." });
    },
    TIMEOUT,
  );

  it(
    "an error reply from the model: the app gets the SDK's error unchanged; the llm and agent spans are ERRORED with the API error",
    async () => {
      const query = wrapQuery(sdk.query);
      let thrown: unknown;
      const { spans } = await traced(async () => {
        try {
          for await (const _ of query({ prompt: "When do orders ship?", options: { ...offline(), tools: [], model: "error-400" } })) {
            // read to the end
          }
        } catch (e) {
          thrown = e;
        }
      });
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toContain("API Error: 400");
      const [agent] = byType(spans, "agent");
      expect(agent).toMatchObject({ status: "ERRORED" });
      expect(agent!.error).toContain("API Error: 400");
      const llm = byType(spans, "llm");
      expect(llm.length).toBeGreaterThanOrEqual(1);
      expect(llm.every((s) => s.status === "ERRORED")).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "interrupt() during the run: the SDK ends the query with its error result, thrown to the app unchanged; the agent span ERRORED with it",
    async () => {
      const query = wrapQuery(sdk.query);
      let thrown: unknown;
      const { spans } = await traced(async () => {
        // The fake paces its stream (sent by the binary as a custom header), so the interrupt
        // always lands while the model is still answering, however loaded the machine.
        const options = offline();
        const q = query({ prompt: "When do orders ship? no tool", options: { ...options, tools: [], env: { ...options.env, ANTHROPIC_CUSTOM_HEADERS: "x-fake-stream-delay-ms: 400" } } });
        try {
          for await (const m of q) if (m.type === "system" && m.subtype === "init") await q.interrupt();
        } catch (e) {
          thrown = e;
        }
      });
      expect(thrown).toBeInstanceOf(Error);
      const [agent] = byType(spans, "agent");
      expect(agent).toMatchObject({ status: "ERRORED", error: (thrown as Error).message });
      expect(meta(agent).resultSubtype).toBeDefined();
    },
    TIMEOUT,
  );

  it(
    "an early break: every span is ended, the agent span ERRORED saying the app stopped reading",
    async () => {
      const query = wrapQuery(sdk.query);
      const { spans } = await traced(async () => {
        for await (const m of query({ prompt: "Where is my order? use mcp__shop__lookup_order", options: { ...offline(), tools: [], mcpServers: { shop: shop(sdk) }, allowedTools: ["mcp__shop__lookup_order"] } })) {
          if (m.type === "assistant") break;
        }
      });
      const [agent] = byType(spans, "agent");
      expect(agent).toMatchObject({ status: "ERRORED", error: expect.stringContaining("stopped reading") });
      expect(spans.every((s) => s.endTime !== undefined && s.endTime !== null)).toBe(true);
      expect(byType(spans, "tool")).toMatchObject([{ name: "mcp__shop__lookup_order", status: "ERRORED" }]);
    },
    TIMEOUT,
  );
});
