import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../packages/evaltrace/bin/evaltrace.mjs", import.meta.url));

function readUntil(child: ChildProcess, pattern: RegExp): Promise<string> {
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (pattern.test(out)) resolve(out);
    });
    child.on("exit", () => reject(new Error(`exited before ${pattern}: ${out}`)));
  });
}

describe("evaltrace dev (CLI)", () => {
  it("prints its URL and keys, logs requests, and stops on SIGINT", async () => {
    const child = spawn(process.execPath, [bin, "dev", "--port", "0", "--plan", "team"], { stdio: ["ignore", "pipe", "pipe"] });
    const banner = await readUntil(child, /export EVALTRACE_BASE_URL/);
    const url = /running at (http:\/\/\S+)/.exec(banner)![1]!;
    const projectKey = /project API key:\s+(\S+)/.exec(banner)![1]!;
    expect(banner).toMatch(/organization API key:\s+svc_local_org_\S+ \(id \d+\)/);
    expect(banner).toContain("plan: team");
    const logged = readUntil(child, /GET \/v1\/metrics 200/);
    const res = await fetch(`${url}/v1/metrics`, { headers: { SERVICE_API_KEY: projectKey } });
    expect(res.status).toBe(200);
    await logged;
    child.kill("SIGINT");
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(0);
  });

  it("exits non-zero with a clear message on bad arguments", () => {
    const bad = spawnSync(process.execPath, [bin, "dev", "--plan", "gold"], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("--plan must be free or team");
    const unknown = spawnSync(process.execPath, [bin, "serve"], { encoding: "utf8" });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('unknown command "serve"');
  });
});

describe("evaltrace dev --judge-url --judge-model", () => {
  it("names the judge in its banner and judges a test run's custom metric with the endpoint", async () => {
    const { startFakeOpenAI } = await import("../../src/fakes/index.js");
    const fake = await startFakeOpenAI({ reply: () => JSON.stringify({ score: 8, reason: "judged by the CLI's judge" }) });
    const child = spawn(process.execPath, [bin, "dev", "--port", "0", "--strict", "--judge-url", fake.url, "--judge-model", "local-judge"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const banner = await readUntil(child, /export EVALTRACE_BASE_URL/);
      expect(banner).toContain(`judge: local-judge at ${fake.url}/chat/completions`);
      const url = /running at (http:\/\/\S+)/.exec(banner)![1]!;
      const key = /project API key:\s+(\S+)/.exec(banner)![1]!;
      const post = (path: string, body: unknown) => fetch(url + path, { method: "POST", headers: { SERVICE_API_KEY: key, "content-type": "application/json" }, body: JSON.stringify(body) });
      await post("/v1/metrics", { name: "Polite", multiTurn: false, criteria: "The answer is polite.", evaluationParams: ["input", "actualOutput"] });
      await post("/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Polite" } }] });
      await post("/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "hi", actualOutput: "hello!" }] });
      let runs: { status: string; results?: { metricsData: { score: number; reason: string }[] }[] }[] = [];
      for (let i = 0; i < 100 && runs[0]?.status !== "COMPLETED"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        runs = (await (await fetch(`${url}/_dev/test-runs`)).json()) as typeof runs;
      }
      expect(runs[0]!.results![0]!.metricsData[0]).toMatchObject({ score: 0.8, reason: "judged by the CLI's judge" });
      expect(fake.requests[0]!.body.model).toBe("local-judge");
    } finally {
      child.kill("SIGINT");
      await new Promise((r) => child.on("exit", r));
      await fake.close();
    }
  });

  it("exits non-zero when --judge-url comes without --judge-model", () => {
    const env = { ...process.env };
    delete env.EVALTRACE_DEV_JUDGE_MODEL;
    const bad = spawnSync(process.execPath, [bin, "dev", "--judge-url", "http://127.0.0.1:1/v1"], { encoding: "utf8", env });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("--judge-url needs --judge-model");
  });
});
