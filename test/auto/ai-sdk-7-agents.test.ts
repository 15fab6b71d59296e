import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { type Finished, packageRoot } from "../helpers/child.js";
import { node22Dir, runsWithNode22 } from "../helpers/node22.js";
import { runtimeName } from "../helpers/skips.js";

// AI SDK 7's ToolLoopAgent under `--import evaltrace/auto` (children load dist/: build first with
// `npx tsup`), in an ESM app as users write it: `registerTelemetry(new OpenTelemetry())` on a
// global provider with the EvaltraceSpanProcessor. The app's file lives in test/node22 for the
// run, so that `ai` is AI SDK 7 there (the root's is 6). ai 7 needs Node 22.
const FILE = "test/auto/ai-sdk-7-agents.test.ts";
const major = Number(process.versions.node.split(".")[0]);
const supported = runsWithNode22(major >= 22 && !("Bun" in globalThis), FILE, `ai 7 needs Node 22+ and zero-code Node's module hooks (this is ${runtimeName}); npm run test:runtimes runs it`);

let dev: DevServer;
let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  openai = await startFakeOpenAI();
});
afterAll(async () => {
  if (!supported) return;
  await openai.close();
  await dev.close();
});

/** Runs `body` as an ESM app file in test/node22 under zero-code. */
async function runApp(name: string, body: string): Promise<Finished> {
  const file = join(node22Dir, `.zero-code-${name}-${process.pid}.mjs`);
  writeFileSync(file, body);
  try {
    const child = spawn(process.execPath, ["--import", "evaltrace/auto", file], {
      cwd: packageRoot,
      env: { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_OPENAI: openai.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    return await new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  } finally {
    rmSync(file, { force: true });
  }
}

function tracesOf(marker: string): StoredSpan[][] {
  return Object.values(dev.state.traces)
    .map((t) => t.spans)
    .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker)));
}

const app = (marker: string, body: string) => `import * as ai from "ai";
import { createOpenAI } from "ai-sdk-openai-4";
import { OpenTelemetry } from "@ai-sdk/otel";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { EvaltraceSpanProcessor, shutdown } from "evaltrace";
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
ai.registerTelemetry(new OpenTelemetry());
const model = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI }).chat("gpt-4o-mini");
const lookup_order = ai.tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }) => ({ orderId, status: "shipped" }) });
const marker = ${JSON.stringify(marker)};
${body}
await shutdown();`;

describe.skipIf(!supported)("zero-code AI SDK 7 agents", () => {
  it("ToolLoopAgent.generate and .stream with a tool: each one trace, an agent span named by the agent's id at its root, two llm spans and the tool span under it, SUCCESS with the reply", async () => {
    const body = `const agent = new ai.ToolLoopAgent({ id: "support", model, tools: { lookup_order } });
const g = await agent.generate({ prompt: "Where is order A-1001? use lookup_order (" + marker + " generate)" });
const s = await agent.stream({ prompt: "Where is order A-1001? use lookup_order (" + marker + " stream)" });
let text = ""; for await (const t of s.textStream) text += t;
console.log(g.text === text);`;
    const f = await runApp("agents", app("ai7-agent", body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe("true");
    const traces = tracesOf("ai7-agent");
    expect(traces).toHaveLength(2);
    for (const spans of traces) {
      const root = spans.filter((s) => !s.parentUuid);
      expect(root).toMatchObject([{ type: "agent", name: "support", status: "SUCCESS", output: FAKE_REPLY }]);
      expect(spans.filter((s) => s.type === "llm").map((s) => s.status)).toEqual(["SUCCESS", "SUCCESS"]);
      expect(spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
    }
  });

  it("ToolLoopAgent.stream aborted by its AbortController: the agent span and its model call ERRORED (aborted) with the text streamed before it", async () => {
    const body = `const agent = new ai.ToolLoopAgent({ id: "support", model, headers: { "x-fake-stream-delay-ms": "40" } });
const abort = new AbortController();
const s = await agent.stream({ prompt: "When? (" + marker + ")", abortSignal: abort.signal });
let n = 0; try { for await (const _ of s.textStream) if (++n === 2) abort.abort(); } catch {}
console.log(n);`;
    const f = await runApp("abort", app("ai7-abort", body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const traces = tracesOf("ai7-abort");
    expect(traces).toHaveLength(1);
    const spans = traces[0]!;
    const root = spans.find((s) => !s.parentUuid)!;
    expect(root).toMatchObject({ type: "agent", name: "support", status: "ERRORED", error: expect.stringContaining("aborted") });
    expect(root.output).toMatch(/^Orders ship/);
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ status: "ERRORED", output: expect.stringMatching(/^Orders ship/) });
    expect(llm[0]!.output).not.toBe(FAKE_REPLY);
  });
});
