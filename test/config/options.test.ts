import { afterEach, describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/config/options.js";
import { configure, type EvaltraceOptions, shutdown, stats } from "../../src/index.js";
import { runChild } from "../helpers/child.js";

afterEach(async () => {
  await shutdown(0);
});

const bad = (options: unknown) => () => configure({ registerExitHooks: false, ...(options as EvaltraceOptions) });

// Lifecycle issue, defect 13: misconfiguration was silent.
describe("configure() rejects what it cannot honour, naming it", () => {
  it("unknown keys, with the near miss", () => {
    expect(bad({ apikey: "k" })).toThrow(/unknown option `apikey`; did you mean `apiKey`\?/);
    expect(bad({ batch: { maxspansperrequest: 5 } })).toThrow(/unknown option `batch.maxspansperrequest`; did you mean `batch.maxSpansPerRequest`/);
    expect(bad({ serializeLimits: { maxDepht: 3 } })).toThrow(TypeError);
    expect(bad({ sampleRatio: 0.5 })).toThrow(/unknown option `sampleRatio`/);
  });

  it("a log level that would silence every warning", () => {
    expect(bad({ logLevel: "verbose" })).toThrow(/option `logLevel` must be one of debug, info, warn, error, silent; got "verbose"/);
  });

  it("wrong types and ranges", () => {
    expect(bad({ sampleRate: 2 })).toThrow(/sampleRate/);
    expect(bad({ batch: 5 })).toThrow(/option `batch` must be an object/);
    expect(bad({ maxTraceDurationMillis: 0 })).toThrow(/maxTraceDurationMillis/);
    expect(bad({ clock: {} })).toThrow(/option `clock` must be an object with now, setTimeout and clearTimeout/);
    expect(bad({ serializeLimits: { maxDepth: -1 } })).toThrow(/serializeLimits.maxDepth/);
    expect(bad({ baseUrl: "ftp://x" })).toThrow(/baseUrl/);
  });
});

describe("environment variables: one warning naming the variable, never a throw", () => {
  it("a bad EVALTRACE_BASE_URL turns tracing off and says so, naming the address meant", () => {
    const o = resolveOptions({}, { EVALTRACE_API_KEY: "k", EVALTRACE_BASE_URL: "localhost:4680" });
    expect(o.enabled).toBe(false);
    expect(o.envProblems).toEqual([
      'environment variable EVALTRACE_BASE_URL="localhost:4680" is not an http(s) URL; tracing is off until it is fixed or configure({ baseUrl }) is called: set EVALTRACE_BASE_URL=http://localhost:4680 (with http:// or https://), or unset it for the default',
    ]);
    expect(o.unusableBaseUrl).toEqual({ variable: "EVALTRACE_BASE_URL", value: "localhost:4680" });
  });

  it("a bad EVALTRACE_SAMPLE_RATE keeps every trace and says so", () => {
    const o = resolveOptions({}, { EVALTRACE_SAMPLE_RATE: "50%" });
    expect(o.sampleRate).toBe(1);
    expect(o.envProblems[0]).toContain("EVALTRACE_SAMPLE_RATE");
    expect(o.envProblems[0]).toContain("a number from 0 to 1");
  });

  it("EVALTRACE_TRACING_ENABLED accepts the usual spellings and warns on others", () => {
    expect(resolveOptions({}, { EVALTRACE_TRACING_ENABLED: "0" }).enabled).toBe(false);
    expect(resolveOptions({}, { EVALTRACE_TRACING_ENABLED: "False" }).enabled).toBe(false);
    expect(resolveOptions({}, { EVALTRACE_TRACING_ENABLED: "true" }).envProblems).toEqual([]);
    expect(resolveOptions({}, { EVALTRACE_TRACING_ENABLED: "nope" }).envProblems[0]).toContain("EVALTRACE_TRACING_ENABLED");
  });

  it("an explicit option wins over a bad variable, with no warning", () => {
    const o = resolveOptions({ baseUrl: "http://127.0.0.1:1" }, { EVALTRACE_BASE_URL: "nope" });
    expect(o.envProblems).toEqual([]);
    expect(o.enabled).toBe(true);
  });

  it("without configure(): the warning reaches the console, and stats() answers", async () => {
    const child = runChild(
      "esm",
      `import { observe, flush, stats } from "evaltrace";
       await observe(async () => 1)();
       const r = await flush();
       console.log("RESULT " + JSON.stringify({ ok: r.ok, enabled: stats().enabled, delivered: stats().tracesDelivered }));`,
      { EVALTRACE_API_KEY: "k", EVALTRACE_BASE_URL: "not a url" },
    );
    const done = await child.finished;
    expect(done.stdout).toContain(`RESULT {"ok":true,"enabled":false,"delivered":0}`);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("EVALTRACE_BASE_URL"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"not a url" is not an http(s) URL');
  });

  it("stats() answers before anything was configured", () => {
    const child = runChild("cjs", `console.log("RESULT " + JSON.stringify(require("evaltrace").stats()));`);
    return child.finished.then((done) => {
      const line = done.stdout.split("\n").find((l) => l.startsWith("RESULT "));
      expect(JSON.parse(line!.slice(7))).toMatchObject({ enabled: false, tracesDelivered: 0, openTraces: 0 });
    });
  });
});

describe("stats()", () => {
  it("says whether tracing records", () => {
    configure({ apiKey: "k", baseUrl: "http://127.0.0.1:1", registerExitHooks: false, logLevel: "silent" });
    expect(stats().enabled).toBe(true);
    configure({ apiKey: "k", baseUrl: "http://127.0.0.1:1", registerExitHooks: false, enabled: false, logLevel: "silent" });
    expect(stats().enabled).toBe(false);
  });
});

describe("a base URL ending in /v1 (issue 48)", () => {
  it("warns once per address that evaltrace adds /v1 itself, naming the address to set; an address without it is silent", () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    resolveOptions({ baseUrl: "http://127.0.0.1:4999/v1/", logger }, {});
    resolveOptions({ baseUrl: "http://127.0.0.1:4999/v1", logger }, {});
    resolveOptions({ baseUrl: "http://127.0.0.1:4999/api", logger }, {});
    expect(warnings).toEqual([
      "the base URL http://127.0.0.1:4999/v1 ends in /v1, but evaltrace adds /v1/... to every path itself (requests would go to http://127.0.0.1:4999/v1/v1/traces): set it to http://127.0.0.1:4999",
    ]);
  });
});

describe("spool.writeAhead", () => {
  it("off by default; on from the option or EVALTRACE_SPOOL_WRITE_AHEAD=true/1; the option wins over the environment", () => {
    expect(resolveOptions({ spool: { dir: "/s" } }, {}).spool?.writeAhead).toBe(false);
    expect(resolveOptions({ spool: { dir: "/s", writeAhead: true } }, {}).spool?.writeAhead).toBe(true);
    expect(resolveOptions({}, { EVALTRACE_SPOOL_DIR: "/s", EVALTRACE_SPOOL_WRITE_AHEAD: "1" }).spool?.writeAhead).toBe(true);
    expect(resolveOptions({ spool: { dir: "/s" } }, { EVALTRACE_SPOOL_WRITE_AHEAD: "true" }).spool?.writeAhead).toBe(true);
    expect(resolveOptions({ spool: { dir: "/s", writeAhead: false } }, { EVALTRACE_SPOOL_WRITE_AHEAD: "true" }).spool?.writeAhead).toBe(false);
  });

  it("a value that is not a boolean: the option throws naming it; the variable is a problem reported, and the spool does not write ahead", () => {
    expect(bad({ spool: { dir: "/s", writeAhead: "yes" } })).toThrow(/spool\.writeAhead/);
    const o = resolveOptions({}, { EVALTRACE_SPOOL_DIR: "/s", EVALTRACE_SPOOL_WRITE_AHEAD: "sometimes" });
    expect(o.spool?.writeAhead).toBe(false);
    expect(o.envProblems.join("\n")).toContain("EVALTRACE_SPOOL_WRITE_AHEAD");
  });
});
