import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { formats, load, runChild } from "../helpers/child.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

const stored = (name: string) => Object.values(dev.state.traces).filter((t) => t.fields.name === name);

describe.each(formats)("exit paths (%s)", (format) => {
  // Lifecycle issue, defect 4: with the app's own graceful SIGTERM handler, the SDK used to shut
  // itself down on the signal; the request in flight was then dropped and flush() said ok.
  it("SIGTERM with the app's graceful handler: what ends while the app drains is delivered", async () => {
    const name = `graceful-${format}`;
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe", "flush"])}
       const handle = observe({ name: process.env.NAME }, async (ms) => { await new Promise((r) => setTimeout(r, ms)); return "ok"; });
       const server = setInterval(() => {}, 1000);
       let inflight;
       process.on("SIGTERM", async () => {
         clearInterval(server);
         await inflight;
         await handle(50); // the app may still serve while it drains: recorded too
         const r = await flush();
         console.log("drained " + JSON.stringify({ ok: r.ok, delivered: r.delivered }));
         process.exit(0);
       });
       inflight = handle(300);
       console.log("ready");`,
      { SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url, NAME: name },
    );
    await child.waitFor("ready");
    child.process.kill("SIGTERM");
    const done = await child.finished;
    expect(done.stdout).toContain(`drained {"ok":true,"delivered":2}`);
    expect({ code: done.code, signal: done.signal }).toEqual({ code: 0, signal: null });
    expect(stored(name)).toHaveLength(2);
  });

  it("SIGTERM without a handler: running work gets time to end, then the process ends by the signal", async () => {
    const name = `no-handler-${format}`;
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe"])}
       const handle = observe({ name: process.env.NAME }, async (ms) => { await new Promise((r) => setTimeout(r, ms)); return "ok"; });
       setInterval(() => {}, 1000);
       void handle(300);
       console.log("ready");`,
      { SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url, NAME: name },
    );
    await child.waitFor("ready");
    child.process.kill("SIGTERM");
    const done = await child.finished;
    expect({ code: done.code, signal: done.signal }).toEqual({ code: null, signal: "SIGTERM" });
    expect(stored(name)).toHaveLength(1);
  });

  // Lifecycle issue, defect 14: process.exit() with undelivered work used to say nothing.
  it("process.exit() with undelivered work warns once, with the count and the fix", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe"])}
       const f = observe({ name: "exit-early" }, async (i) => i);
       await f(1); await f(2);
       process.exit(0);`,
      { SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(0);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("exited with 2 trace(s) not delivered");
    expect(warnings[0]).toContain("Await flush()");
  });

  it("process.exit() after flush() says nothing", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe", "flush"])}
       await observe({ name: "exit-flushed" }, async () => 1)();
       await flush();
       process.exit(0);`,
      { SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(0);
    expect(done.stderr).toBe("");
  });
});
