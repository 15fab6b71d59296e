import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formats, load, packageRoot, runChild } from "../helpers/child.js";
import type { FaultProxy } from "../helpers/fault-proxy.js";
import { faultyEmulator } from "../helpers/faulty-emulator.js";

// Lifecycle issue, defect 1: work someone awaits must keep the process alive through a retry's
// backoff. Before the fix, an awaited flush() during a backoff ended the process (ESM: exit code
// 13, unsettled top-level await; CommonJS: 0) and nothing after it ran.
const service = faultyEmulator();

/** A proxy in front of the emulator that answers 503 to its first request. */
function flaky(): Promise<FaultProxy> {
  return service.proxy((n) => (n === 0 ? "503" : undefined));
}

describe.each(formats)("awaited work during a backoff (%s)", (format) => {
  it("an awaited flush() where nothing listens resolves at once, the trace pending (retried in the background), and the app goes on", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "observe", "flush"])}
       configure({ apiKey: "k", baseUrl: "http://127.0.0.1:1", maxRetries: 2, initialRetryDelayMillis: 200, registerExitHooks: false, logLevel: "silent" });
       await observe(async () => 1)();
       const r = await flush();
       console.log("after flush " + JSON.stringify({ ok: r.ok, pending: r.pending.length, nothingAnswers: typeof r.nothingAnswers }));`,
    );
    const done = await child.finished;
    expect(done.stdout).toContain(`after flush {"ok":false,"pending":1,"nothingAnswers":"string"}`);
    expect(done.code).toBe(0);
  });

  it("an awaited flush() that meets one 503 delivers after the retry", async () => {
    const p = await flaky();
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "observe", "flush"])}
       configure({ registerExitHooks: false });
       await observe({ name: "retried-${format}" }, async () => 1)();
       const r = await flush();
       console.log("after flush " + JSON.stringify({ ok: r.ok, delivered: r.delivered }));`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: p.url },
    );
    const done = await child.finished;
    expect(done.stdout).toContain(`after flush {"ok":true,"delivered":1}`);
    expect(done.code).toBe(0);
    expect(p.counts.faults["503"]).toBe(1);
    expect(Object.values(service.dev.state.traces).filter((t) => t.fields.name === `retried-${format}`)).toHaveLength(1);
  });

  it("an awaited Client call that meets one 503 resolves after the retry", async () => {
    const p = await flaky();
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["Client"])}
       const metrics = await new Client().metrics.list();
       console.log("metrics " + (metrics.length > 0));`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: p.url },
    );
    const done = await child.finished;
    expect(done.stdout).toContain("metrics true");
    expect(done.code).toBe(0);
    expect(p.counts.faults["503"]).toBe(1);
  });

  it("an awaited offline evaluation outlives an outage (found in review)", async () => {
    await fetch(`${service.dev.url}/v1/metric-collections`, {
      method: "POST",
      headers: { "content-type": "application/json", SERVICE_API_KEY: service.dev.projectKey },
      body: JSON.stringify({ name: `answers-${format}`, multiTurn: false }),
    });
    const started = Date.now();
    const proxy = await service.proxy(() => (Date.now() - started < 2500 ? "503" : undefined));
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "observe", "evaluateTrace", "currentTraceUuid"])}
       configure({ registerExitHooks: false, initialRetryDelayMillis: 1000, maxRetries: 10 });
       const uuid = await observe(async () => currentTraceUuid())();
       const outcome = await evaluateTrace(uuid, { metricCollection: "answers-${format}" });
       console.log("evaluated " + outcome.status);`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: proxy.url },
    );
    const done = await child.finished;
    expect(done.stdout).toContain("evaluated delivered");
    expect(done.code).toBe(0);
  });

  it("an app that ends without flush() during a backoff still delivers, exactly once (exit hook)", async () => {
    const p = await flaky();
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe"])}
       const f = observe({ name: "no-flush-${format}" }, async (i) => i);
       for (let i = 0; i < 3; i++) await f(i);`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: p.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(0);
    expect(p.counts.faults["503"]).toBe(1);
    expect(Object.values(service.dev.state.traces).filter((t) => t.fields.name === `no-flush-${format}`)).toHaveLength(3);
  });
});

describe("npx evaltrace push-dataset during a backoff", () => {
  it("pushes after one 503 and exits 0", async () => {
    const p = await flaky();
    const dir = mkdtempSync(join(tmpdir(), "evaltrace-retry-"));
    const file = join(dir, "g.jsonl");
    writeFileSync(file, `${JSON.stringify({ input: "q", expectedOutput: "a" })}\n`);
    const cli = spawn(process.execPath, ["packages/evaltrace/bin/evaltrace.mjs", "push-dataset", "--alias", "retried", file], {
      cwd: packageRoot,
      env: { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: p.url },
    });
    let out = "";
    cli.stdout.on("data", (c: Buffer) => {
      out += c;
    });
    const code = await new Promise<number | null>((r) => cli.on("close", (c) => r(c)));
    expect(out).toContain("pushed 1 golden(s) to dataset retried");
    expect(code).toBe(0);
    expect(p.counts.faults["503"]).toBe(1);
    expect(service.dev.state.datasets.retried!.unversioned).toHaveLength(1);
  });
});
