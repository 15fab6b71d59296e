import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { doctor, type SpoolReading } from "../../src/doctor/index.js";
import { configure, shutdown } from "../../src/index.js";
import { memoryLogger } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

const findings = async (check: string, options: Parameters<typeof doctor>[0] = {}) => (await doctor({ timeoutMillis: 500, ...options })).findings.filter((f) => f.check === check);
const setup = (options: Parameters<typeof configure>[0] = {}) => configure({ apiKey: dev.projectKey, baseUrl: dev.url, logger: memoryLogger(), ...options });
const OURS = Symbol.for("evaltrace.exitHook");

// In order: the process starts with no runtime, then configure() calls change it.
describe("doctor(): exit flush, in the app's process", () => {
  it("no runtime yet: ok, saying configure() installs the hooks", async () => {
    expect(await findings("exit-flush")).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("no runtime yet") })]);
  });

  it("registerExitHooks: false: a warning that queued traces are lost, with await shutdown() as the fix", async () => {
    setup({ registerExitHooks: false });
    expect(await findings("exit-flush")).toEqual([
      expect.objectContaining({ ok: false, severity: "warning", message: expect.stringContaining("registerExitHooks is false"), fix: expect.stringContaining("await shutdown()") }),
    ]);
  });

  it("hooks installed: ok, the process flushes at exit", async () => {
    setup();
    expect(await findings("exit-flush")).toEqual([expect.objectContaining({ ok: true, message: "the process flushes at exit: hooks on beforeExit, SIGTERM and SIGINT" })]);
  });

  it("the app's own SIGTERM handler: an ok note that it decides the exit, saying to await flush() in it", async () => {
    const handler = () => {};
    process.on("SIGTERM", handler);
    try {
      expect(await findings("exit-flush")).toContainEqual(expect.objectContaining({ ok: true, message: expect.stringContaining("the app handles SIGTERM itself"), fix: expect.stringContaining("await flush()") }));
    } finally {
      process.removeListener("SIGTERM", handler);
    }
  });

  it("our beforeExit listener removed by the app: a warning naming beforeExit", async () => {
    const ours = process.listeners("beforeExit").filter((l) => (l as unknown as Record<symbol, unknown>)[OURS]);
    for (const l of ours) process.removeListener("beforeExit", l);
    try {
      expect(await findings("exit-flush")).toEqual([expect.objectContaining({ ok: false, severity: "warning", message: expect.stringContaining("not listening for beforeExit") })]);
    } finally {
      for (const l of ours) process.on("beforeExit", l);
    }
  });
});

describe("doctor(): the settings", () => {
  it("a healthy configure(): config ok, naming the base URL", async () => {
    setup();
    expect(await findings("config")).toEqual([expect.objectContaining({ ok: true, message: `settings resolve: tracing on, sample rate 1, base URL ${dev.url}` })]);
  });

  it("enabled: false: a warning that tracing is turned off", async () => {
    setup({ enabled: false });
    expect(await findings("config")).toEqual([expect.objectContaining({ ok: false, severity: "warning", message: expect.stringContaining("tracing is turned off") })]);
  });

  it("sampleRate: 0: a warning that every trace is dropped", async () => {
    setup({ sampleRate: 0 });
    expect(await findings("config")).toEqual([expect.objectContaining({ ok: false, severity: "warning", message: "sampleRate is 0: every trace is dropped" })]);
  });

  it("an unusable sample-rate environment variable: a warning naming it", async () => {
    const saved = { SERVICE_SAMPLE_RATE: process.env.SERVICE_SAMPLE_RATE, EVALTRACE_SAMPLE_RATE: process.env.EVALTRACE_SAMPLE_RATE };
    process.env.SERVICE_SAMPLE_RATE = "lots";
    process.env.EVALTRACE_SAMPLE_RATE = "lots";
    try {
      setup();
      const found = await findings("config");
      expect(found).toContainEqual(expect.objectContaining({ ok: false, severity: "warning", message: expect.stringMatching(/SAMPLE_RATE="lots" is not a number from 0 to 1/) }));
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe("doctor(): the spool, read through an injected inspector", () => {
  const stub = (found: SpoolReading) => async () => found;
  // This process's runtime has no spool: the mode configured is said (the doctor's settings are the runtime's).
  const modeFinding = expect.objectContaining({ ok: true, severity: "info", message: expect.stringMatching(/^the spool is in mode memory-first as configured/) });

  it("no spool directory: ok, no spool configured", async () => {
    const saved = process.env.EVALTRACE_SPOOL_DIR;
    delete process.env.EVALTRACE_SPOOL_DIR;
    expect(await findings("spool")).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("no spool configured") })]);
    if (saved !== undefined) process.env.EVALTRACE_SPOOL_DIR = saved;
  });

  it("EVALTRACE_SPOOL_DIR set and no inspector: the directory is read by evaltrace's inspectSpool (not made yet: an empty spool, ok)", async () => {
    process.env.EVALTRACE_SPOOL_DIR = "/nonexistent/evaltrace-spool";
    try {
      expect(await findings("spool")).toEqual([expect.objectContaining({ ok: true, message: "the spool at /nonexistent/evaltrace-spool is empty" }), modeFinding]);
    } finally {
      delete process.env.EVALTRACE_SPOOL_DIR;
    }
  });

  it("an empty spool: ok", async () => {
    const found = await findings("spool", { spoolDir: "/s", inspectSpool: stub({ bytes: 0, traces: 0, oldestAgeMs: null, lockedByLivePid: null }) });
    expect(found).toEqual([expect.objectContaining({ ok: true, message: "the spool at /s is empty" }), modeFinding]);
  });

  it("records a minute old: ok, draining", async () => {
    const found = await findings("spool", { spoolDir: "/s", inspectSpool: stub({ bytes: 2048, traces: 3, oldestAgeMs: 60_000, lockedByLivePid: process.pid }) });
    expect(found).toEqual([expect.objectContaining({ ok: true, message: "the spool at /s holds 3 trace(s), 2048 bytes, the oldest 1 min old: draining" }), modeFinding]);
  });

  it("records older than spoolStaleMillis, locked by another live process: a warning that it is not draining, naming the process", async () => {
    const found = await findings("spool", { spoolDir: "/s", spoolStaleMillis: 600_000, inspectSpool: stub({ bytes: 10_000, traces: 12, oldestAgeMs: 7_200_000, lockedByLivePid: 4242 }) });
    expect(found).toEqual([
      expect.objectContaining({
        ok: false,
        severity: "warning",
        message: "the spool at /s is not draining: 12 trace(s), 10000 bytes, the oldest 2.0 h old; locked by process 4242",
        fix: expect.stringContaining("process 4242 holds it"),
      }),
      modeFinding,
    ]);
  });

  it("stale and no process holding it: the fix says to start the app", async () => {
    const found = await findings("spool", { spoolDir: "/s", inspectSpool: stub({ bytes: 10, traces: 1, oldestAgeMs: 3_600_000, lockedByLivePid: null }) });
    expect(found[0]).toMatchObject({ ok: false, fix: expect.stringContaining("no process is delivering it") });
  });

  it("the app's runtime spools: the mode is the runtime's (write-ahead), with how many traces are only in memory", async () => {
    setup({ spool: { dir: "/tmp/evaltrace-doctor-mode-spool", writeAhead: true } });
    try {
      const found = await findings("spool", { inspectSpool: stub({ bytes: 0, traces: 0, oldestAgeMs: null, lockedByLivePid: null }) });
      expect(found[1]).toEqual(expect.objectContaining({ ok: true, severity: "info", message: "the spool is in mode write-ahead: 0 trace(s) of this process only in memory" }));
    } finally {
      setup();
    }
  });

  it("an inspector that throws: a warning that the spool cannot be read, never a throw", async () => {
    const found = await findings("spool", { spoolDir: "/s", inspectSpool: async () => Promise.reject(new Error("EACCES: permission denied")) });
    expect(found).toEqual([expect.objectContaining({ ok: false, severity: "warning", message: "the spool at /s cannot be read: EACCES: permission denied" }), modeFinding]);
  });
});
