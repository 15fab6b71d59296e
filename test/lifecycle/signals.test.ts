import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, NAME: name },
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
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, NAME: name },
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
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(0);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("exited with 2 trace(s) not delivered");
    expect(warnings[0]).toContain("Await flush()");
  });

  // Issue 49: `next start`'s own SIGTERM handler calls process.exit(); "await flush() before
  // process.exit()" is advice the app cannot follow in a handler it does not own.
  it("the app's SIGTERM handler calls process.exit() with undelivered work: the warning names the signal and says to deliver each request's traces as it ends (docs/nextjs.md)", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe"])}
       const f = observe({ name: "exit-on-signal" }, async (i) => i);
       process.on("SIGTERM", () => process.exit(143));
       setInterval(() => {}, 1000);
       await f(1);
       console.log("ready");`,
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    );
    await child.waitFor("ready");
    child.process.kill("SIGTERM");
    const done = await child.finished;
    expect(done.code).toBe(143);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the app's own SIGTERM handler ended the process with process.exit()");
    expect(warnings[0]).toContain("deliver(after)");
    expect(warnings[0]).toContain("docs/nextjs.md");
  });

  it("an app that ends on its own while the service never answers: the warning says the flush on the way out ran out of time and names the address, not process.exit()", async () => {
    // A service that takes connections and never answers.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const child = runChild(
        format,
        `${load(format, "evaltrace", ["observe", "configure"])}
         configure({ shutdownTimeoutMillis: 300 });
         await observe({ name: "never-answered" }, async () => 1)();`,
        { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: url },
      );
      const done = await child.finished;
      expect(done.code).toBe(0);
      const warnings = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("did not finish within shutdownTimeoutMillis (300 ms");
      expect(warnings[0]).toContain(url);
      expect(warnings[0]).not.toContain("process.exit()");
    } finally {
      silent.closeAllConnections?.();
      silent.close();
    }
  });

  it("an uncaught exception with undelivered work: the warning says so, not process.exit()", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe"])}
       await observe({ name: "crashed" }, async () => 1)();
       setTimeout(() => { throw new Error("boom"); }, 0);`,
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(1);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("uncaught exception");
    expect(warnings[0]).not.toContain("process.exit()");
  });

  it("process.exit() after flush() says nothing", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["observe", "flush"])}
       await observe({ name: "exit-flushed" }, async () => 1)();
       await flush();
       process.exit(0);`,
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.code).toBe(0);
    expect(done.stderr).toBe("");
  });
});
