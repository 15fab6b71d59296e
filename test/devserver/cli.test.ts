import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../bin/evaltrace.mjs", import.meta.url));

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
    const banner = await readUntil(child, /export SERVICE_BASE_URL/);
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
