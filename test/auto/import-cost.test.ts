import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formats, load, packageRoot, runChild, runZeroCode } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { syncHooksWork } from "../../src/auto/sync-hooks.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither,
// so there an app calls the wrap functions itself.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/import-cost.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// Importing evaltrace must stay cheap and free of side effects: the module hooks
// (@opentelemetry/instrumentation, require-in-the-middle, import-in-the-middle, from
// @evaltrace/auto) load only when instrument() (evaltrace/instrument) or evaltrace/auto turns a
// library on.
const hooks = /@opentelemetry[\\/]instrumentation|require-in-the-middle|import-in-the-middle/;

describe.skipIf(onBun).each(formats)("importing evaltrace (%s)", (format) => {
  it("loads none of the module-hook machinery until instrument() is called and an instrumented library is required", async () => {
    // Every CommonJS module loaded, from either format (the hooks' packages are CommonJS). Where
    // Node has working synchronous hooks (22.22.3+), instrument() registers them and loads
    // nothing more until a library's module loads: require-in-the-middle comes with the first
    // require of one (openai's CommonJS build here); on Node 20, instrument() itself loads
    // import-in-the-middle's hook for the module-hooks thread.
    const source = `${load(format, "evaltrace", ["observe"])}
${load(format, "evaltrace/instrument", ["instrument"])}
${load(format, "node:module", ["createRequire"])}
const require_ = createRequire(process.cwd() + "/x.js");
const loaded = () => Object.keys(require_.cache).filter((k) => ${hooks}.test(k)).length;
const before = loaded();
observe(() => 1)();
const afterObserve = loaded();
instrument({});
const afterInstrument = loaded();
require_("openai");
console.log(JSON.stringify({ before, afterObserve, afterInstrument, afterRequire: loaded() }));`;
    const done = await runChild(format, source, { EVALTRACE_TRACING_ENABLED: "false" }).finished;
    expect(done.code, done.stderr).toBe(0);
    const counts = JSON.parse(done.stdout.trim()) as { before: number; afterObserve: number; afterInstrument: number; afterRequire: number };
    expect(counts.before).toBe(0);
    expect(counts.afterObserve).toBe(0);
    if (syncHooksWork()) expect(counts.afterInstrument).toBe(0);
    else expect(counts.afterInstrument).toBeGreaterThan(0);
    expect(counts.afterRequire).toBeGreaterThan(counts.afterInstrument);
  });
});

// What `import "evaltrace"` reaches in the build: every file its entry imports, transitively
// (issue 41). No integration and no zero-code hook: those are subpaths an app imports itself.
const integrationCode = /wrapOpenAI|wrapAnthropic|wrapGoogleGenAI|wrapBedrock|EvaltraceCallbackHandler|EvaltraceTracingProcessor|instrumentLlamaIndex|instrumentMcpClient|EvaltraceExporter|wrapQuery|evaltrace-auto-|import-in-the-middle|require-in-the-middle/;

describe("the main entry of the build (packages/evaltrace/dist)", () => {
  const dist = join(packageRoot, "packages", "evaltrace", "dist");
  /** The files `entry` imports statically, itself included, transitively. */
  const closure = (entry: string): string[] => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(join(dist, file), "utf8");
      for (const m of code.matchAll(/(?:from|import|require\()\s*["']\.\/([^"']+)["']/g)) visit(m[1]!);
    };
    visit(entry);
    return [...seen];
  };

  for (const entry of ["index.js", "index.cjs"]) {
    it(`${entry} reaches no integration and no zero-code code`, () => {
      const files = closure(entry);
      expect(files.length).toBeGreaterThan(1);
      expect(files.filter((f) => integrationCode.test(readFileSync(join(dist, f), "utf8")))).toEqual([]);
    });
  }
});

// Start-up (issue 34): `import "evaltrace"` loads @opentelemetry/api and the context manager,
// nothing of @opentelemetry/core (its W3C propagator and TraceState are vendored in src/util/,
// issue 41), @opentelemetry/resources (its empty resource is ours) or the AI SDK hook's
// BasicTracerProvider (@opentelemetry/sdk-trace-base, loaded at the first traced AI SDK call).
const sdkPackages = /@opentelemetry[\\/](core|resources|sdk-trace-base|semantic-conventions)[\\/]/;

describe.each(formats)("importing evaltrace (%s), start-up", (format) => {
  it("loads nothing of @opentelemetry/core, resources, sdk-trace-base or semantic-conventions, and an observed function still runs", async () => {
    const source = `${load(format, "evaltrace", ["observe", "configure", "flush"])}
${load(format, "node:module", ["createRequire"])}
const loaded = () => Object.keys(createRequire(process.cwd() + "/x.js").cache).filter((k) => ${sdkPackages}.test(k));
const before = loaded();
configure({ apiKey: "svc_local_proj_startup", baseUrl: "http://127.0.0.1:9", registerExitHooks: false });
const value = observe({ name: "one" }, () => 1)();
console.log(JSON.stringify({ before, value }));`;
    const done = await runChild(format, source, {}).finished;
    expect(done.code, done.stderr).toBe(0);
    const result = JSON.parse(done.stdout.trim()) as { before: string[]; value: number };
    expect(result.before).toEqual([]);
    expect(result.value).toBe(1);
  });
});

// Node's HTTP builtins loaded so far, in the child.
const httpBuiltins = `const builtins = () => process.moduleLoadList.filter((m) => /^NativeModule (http|https|tls|internal\\/deps\\/undici\\/undici)$/.test(m)).map((m) => m.slice(13));`;

// Start-up (issue 34): Node's HTTP stack is loaded after the app's start, not while it starts.
// configure() loads the module of the base URL's scheme on a timer (so the first send does not
// wait for it), `http` for an http:// URL and not `https` with its TLS stack; and never by an
// `import()` of the builtin, whose ESM facade reads `node:http`'s lazy exports and so loads
// undici (some 35 ms on Node 22).
describe.skipIf(onBun).each(formats)("configuring evaltrace (%s), start-up", (format) => {
  it("loads no HTTP module while the app's top level runs; then http for an http:// base URL, neither https, tls nor undici", async () => {
    const source = `${load(format, "evaltrace", ["configure"])}
${httpBuiltins}
configure({ apiKey: "svc_local_proj_startup", baseUrl: "http://127.0.0.1:9", registerExitHooks: false });
const atStart = builtins();
setTimeout(() => console.log(JSON.stringify({ atStart, after: builtins() })), 50);`;
    const done = await runChild(format, source, {}).finished;
    expect(done.code, done.stderr).toBe(0);
    const result = JSON.parse(done.stdout.trim()) as { atStart: string[]; after: string[] };
    expect(result.atStart).toEqual([]);
    expect(result.after).toEqual(["http"]);
  });

  it("under zero-code (--import / -r evaltrace/auto), an app that loads no instrumented library loads no HTTP module at all (nothing is set up before such a library's first import)", async () => {
    const source = `${httpBuiltins}
const atStart = builtins();
setTimeout(() => console.log(JSON.stringify({ atStart, after: builtins() })), 50);`;
    const done = await runZeroCode(format, source, { EVALTRACE_API_KEY: "svc_local_proj_startup", EVALTRACE_BASE_URL: "http://127.0.0.1:9" });
    expect(done.code, done.stderr).toBe(0);
    const result = JSON.parse(done.stdout.trim()) as { atStart: string[]; after: string[] };
    expect(result.atStart).toEqual([]);
    expect(result.after).toEqual([]);
  });
});
