import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { traceUuid } from "../../src/spans/ids.js";
import { packageRoot } from "../helpers/child.js";
import { runsHere, runtimeName } from "../helpers/skips.js";
// @ts-expect-error: a plain .mjs script without declarations
import { install } from "./install.mjs";

// Issue 49: a Next.js 16 app as its users deploy it (test/nextjs/app: `next build`, then
// `next start` in a child process), against the emulator and the fake OpenAI server. Its
// instrumentation.ts statically imports evaltrace and @vercel/otel (Next compiles it for the edge
// runtime too), a pass-through middleware runs on the edge runtime, and one route runs on each
// runtime. docs/nextjs.md gives these very files.
// Node 20 only (npm test): the build takes minutes, and the app's code runs on the Node that
// serves it, the same on 22 and 24; Bun does not run `next start`.
const onNode20 = runsHere(
  process.versions.bun === undefined && process.versions.node.startsWith("20."),
  "test/nextjs/nextjs.test.ts",
  `the Next.js app is built and served once, on Node 20 (npm test); this is ${runtimeName}`,
);

const run = promisify(execFile);
let app: string;
let dev: DevServer;
let fake: FakeOpenAI;

beforeAll(async () => {
  if (!onNode20) return;
  app = install() as string;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  await run(process.execPath, [join(app, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: app,
    env: { PATH: process.env.PATH ?? "", NEXT_TELEMETRY_DISABLED: "1" },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string }) => {
    throw new Error(`next build failed:\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  });
}, 900_000);

afterAll(async () => {
  await fake?.close();
  await dev?.close();
});

/** A port the system says is free now (`next start` takes a port number, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

interface Served {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `next start` in a child process, with the app's environment; resolves once it serves. */
async function serve(env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(app, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: app,
    env: {
      PATH: process.env.PATH ?? "",
      NEXT_TELEMETRY_DISABLED: "1",
      EVALTRACE_API_KEY: dev.projectKey,
      EVALTRACE_BASE_URL: dev.url,
      FAKE_OPENAI_URL: fake.url,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
  await expect.poll(() => out, { timeout: 60_000 }).toMatch(/Ready in/);
  return { url: `http://127.0.0.1:${port}`, child, output: () => out, exited };
}

async function stop(s: Served): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await s.exited;
}

/** The traces stored for questions that start with `tag`, by question. */
function tracesOf(tag: string) {
  return Object.values(dev.state.traces).filter((t) => t.spans.some((s) => JSON.stringify(s.input ?? "").includes(tag)));
}

/** `n` concurrent requests to each route; their answers. */
async function ask(s: Served, tag: string, n: number) {
  const calls = [];
  for (const route of ["chat", "edge-chat"]) {
    for (let i = 0; i < n; i++) {
      calls.push(
        fetch(`${s.url}/api/${route}?q=${tag}-${route}-${i}`).then(async (res) => ({ status: res.status, middleware: res.headers.get("x-middleware"), body: await res.text() })),
      );
    }
  }
  return Promise.all(calls);
}

function expectCompleteTraces(tag: string, n: number) {
  const traces = tracesOf(tag);
  expect(traces).toHaveLength(2 * n);
  for (const t of traces) {
    const agent = t.spans.find((s) => s.name === "next-agent");
    const llm = t.spans.find((s) => s.type === "llm");
    expect(agent).toBeDefined();
    expect(llm).toMatchObject({ parentUuid: agent!.uuid, status: "SUCCESS", output: "Orders ship in 2 days.", inputTokenCount: 11, outputTokenCount: 4 });
    // The trace's input and output are the agent's, under Next's server span too (the bridge).
    expect(JSON.stringify(t.fields.input)).toContain(tag);
    expect(t.fields.output).toBe("Orders ship in 2 days.");
  }
}

describe.skipIf(!onNode20)("a Next.js 16 app (next build, next start) with evaltrace in instrumentation.ts", () => {
  const setups: { name: string; tag: string; env: Record<string, string> }[] = [
    { name: "configure() only", tag: "plain", env: { APP_OTEL: "0" } },
    { name: "configure() and @vercel/otel with EvaltraceSpanProcessor", tag: "otel", env: {} },
  ];
  for (const setup of setups) {
    it(`${setup.name}: node and edge routes behind the edge middleware answer 200 with the model's text, each request one complete trace, no error or warning printed`, async () => {
      const s = await serve(setup.env);
      try {
        const tag = setup.tag;
        const answers = await ask(s, tag, 5);
        expect(answers.map((a) => [a.status, a.middleware])).toEqual(Array(10).fill([200, "passed"]));
        for (const a of answers) expect(JSON.parse(a.body)).toMatchObject({ text: "Orders ship in 2 days." });
        await expect.poll(() => tracesOf(tag).length, { timeout: 20_000 }).toBe(10);
        expectCompleteTraces(tag, 5);
        expect(s.output()).not.toMatch(/error|warn/i);
      } finally {
        await stop(s);
      }
    }, 120_000);
  }

  it("requests that carry one incoming traceparent (two at once, then one more): every request's agent and llm span are stored, in the one trace of that upstream request", async () => {
    const s = await serve({});
    try {
      const traceId = `4bf92f3577b34da6a3ce929d0e0e${String(Date.now() % 10_000).padStart(4, "0")}`;
      const headers = { traceparent: `00-${traceId}-00f067aa0ba902b7-01` };
      const get = (i: number) => fetch(`${s.url}/api/chat?q=shared-${i}`, { headers }).then((res) => res.status);
      expect(await Promise.all([get(0), get(1)])).toEqual([200, 200]);
      const uuid = traceUuid(traceId);
      await expect.poll(() => dev.state.traces[uuid]?.spans.filter((sp) => sp.name === "next-agent").length ?? 0, { timeout: 20_000 }).toBe(2);
      expect(await get(2)).toBe(200);
      await expect.poll(() => dev.state.traces[uuid]?.spans.filter((sp) => sp.name === "next-agent").length ?? 0, { timeout: 20_000 }).toBe(3);
      const spans = dev.state.traces[uuid]!.spans;
      for (const agent of spans.filter((sp) => sp.name === "next-agent")) {
        expect(spans.find((sp) => sp.type === "llm" && sp.parentUuid === agent.uuid)).toMatchObject({ status: "SUCCESS", output: "Orders ship in 2 days." });
      }
      expect(s.output()).not.toMatch(/error|warn/i);
    } finally {
      await stop(s);
    }
  }, 120_000);

  it("doctor() inside the app (with @vercel/otel and EvaltraceSpanProcessor): the global tracer provider is found to carry the processor", async () => {
    const s = await serve({});
    try {
      const res = await fetch(`${s.url}/api/doctor`);
      expect(res.status).toBe(200);
      const report = (await res.json()) as { inApp: boolean; findings: { check: string; ok: boolean; message: string }[] };
      expect(report.inApp).toBe(true);
      const found = report.findings.filter((f) => f.check === "tracer-provider");
      expect(found, JSON.stringify(found)).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("carries EvaltraceSpanProcessor") })]);
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('zero-code (NODE_OPTIONS="--import evaltrace/auto" next start): Next bundles openai, the route answers as usual, and the server says so once, naming serverExternalPackages', async () => {
    const s = await serve({ APP_OTEL: "0", NODE_OPTIONS: "--import evaltrace/auto" });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${s.url}/api/plain`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ text: "Orders ship in 2 days." });
      }
      await expect.poll(() => s.output()).toContain('serverExternalPackages: ["openai"]');
      expect(s.output().split("\n").filter((l) => l.includes("zero-code cannot patch a bundled copy"))).toHaveLength(1);
    } finally {
      await stop(s);
    }
  }, 120_000);

  it("SIGTERM right after the answers (Next's handler calls process.exit()): every trace of the round is stored", async () => {
    const s = await serve({});
    const answers = await ask(s, "sigterm", 3);
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    s.child.kill("SIGTERM");
    const { code } = await s.exited;
    expect(code).toBe(143);
    expectCompleteTraces("sigterm", 3);
  }, 120_000);
});

describe("docs/nextjs.md", () => {
  it("gives each file of the tested app (a block whose first line is `// <file>`) exactly as test/nextjs/app has it", () => {
    const page = readFileSync(join(packageRoot, "docs", "nextjs.md"), "utf8");
    const blocks = [...page.matchAll(/```(?:ts|tsx|js|mjs)\n(\/\/ ([\w./-]+)\n[\s\S]*?)```/g)];
    expect(blocks.map((b) => b[2])).toEqual(["instrumentation.ts", "lib/answer.ts", "app/api/chat/route.ts", "app/api/edge-chat/route.ts", "middleware.ts"]);
    for (const [, code, file] of blocks) {
      const body = code!.slice(code!.indexOf("\n") + 1);
      expect(body, file).toBe(readFileSync(join(packageRoot, "test", "nextjs", "app", file!), "utf8"));
    }
  });
});
