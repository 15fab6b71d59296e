import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

function run(source: string, name: string): ChildProcess {
  return spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: root,
    env: { ...process.env, EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, TRACE_NAME: name },
    stdio: ["ignore", "pipe", "inherit"],
  });
}

const exited = (child: ChildProcess) => new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
const stored = (name: string) => Object.values(dev.state.traces).filter((t) => t.fields.name === name);

describe("delivery on the way out (the built package)", () => {
  it("delivers on beforeExit when the app ends without flush()", async () => {
    // No configure(), no flush(): the environment is enough, and the exit hook delivers.
    const child = run(
      `import { observe } from "evaltrace";
       const f = observe({ name: process.env.TRACE_NAME }, async (i) => i);
       for (let i = 0; i < 25; i++) await f(i);`,
      "before-exit",
    );
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(stored("before-exit")).toHaveLength(25);
  });

  it("delivers on SIGTERM and still exits by the signal when the app has no handler", async () => {
    const child = run(
      `import { observe } from "evaltrace";
       const f = observe({ name: process.env.TRACE_NAME }, async (i) => i);
       for (let i = 0; i < 10; i++) await f(i);
       setInterval(() => {}, 1000); // a server that would run forever
       console.log("ready");`,
      "sigterm",
    );
    await new Promise<void>((r) => child.stdout!.once("data", () => r()));
    child.kill("SIGTERM");
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
    expect(stored("sigterm")).toHaveLength(10);
  });

  it("leaves SIGTERM to the app's own handler (which exits after its cleanup) when it has one", async () => {
    const child = run(
      `import { observe } from "evaltrace";
       const f = observe({ name: process.env.TRACE_NAME }, async (i) => i);
       await f(1);
       const t = setInterval(() => {}, 1000);
       process.on("SIGTERM", () => { clearInterval(t); setTimeout(() => process.exit(7), 300); });
       console.log("ready");`,
      "own-handler",
    );
    await new Promise<void>((r) => child.stdout!.once("data", () => r()));
    child.kill("SIGTERM");
    expect(await exited(child)).toEqual({ code: 7, signal: null });
    expect(stored("own-handler")).toHaveLength(1);
  });
});
