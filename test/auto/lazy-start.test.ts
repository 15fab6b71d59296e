import { describe, expect, it } from "vitest";
import { formats, load, runZeroCode } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks; Bun has none.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/lazy-start.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// Issue 46: under `evaltrace/auto`, nothing of evaltrace's SDK or of the hooks is loaded before
// the app's first import of a library zero-code instruments (children load dist/: build first).
// What the app reads: the CommonJS modules loaded (the hooks' packages and zero-code's set-up are
// CommonJS), and whether the SDK's runtime exists (the registry the runtime keeps on globalThis).
const probe = (format: "esm" | "cjs") => `${load(format, "node:module", ["createRequire"])}
const hooks = /@opentelemetry[\\\\/]instrumentation|require-in-the-middle|import-in-the-middle|auto-setup\\.cjs/;
// import-in-the-middle's version check (one file, no imports) is read at start to pick the hook mechanism.
const loaded = () => Object.keys(createRequire(process.cwd() + "/x.js").cache).filter((k) => hooks.test(k) && !k.endsWith("supports-sync-hooks.mjs")).length;
const runtime = () => globalThis[Symbol.for("evaltrace.registry")]?.current !== undefined;`;

describe.skipIf(onBun).each(formats)("zero-code start-up (%s)", (format) => {
  it("an app that imports no instrumented library loads none of the hooks and makes no runtime", async () => {
    const source = `${probe(format)}
const atStart = { hooks: loaded(), runtime: runtime() };
setTimeout(() => console.log(JSON.stringify({ atStart, after: { hooks: loaded(), runtime: runtime() } })), 50);`;
    const done = await runZeroCode(format, source, { EVALTRACE_API_KEY: "svc_local_proj_startup", EVALTRACE_BASE_URL: "http://127.0.0.1:9" });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe("");
    expect(JSON.parse(done.stdout.trim())).toEqual({ atStart: { hooks: 0, runtime: false }, after: { hooks: 0, runtime: false } });
  });

  it("the hooks and the runtime are made at the app's first import of an instrumented library, before the app gets it", async () => {
    const importOpenAI = format === "esm" ? `const { default: OpenAI } = await import("openai");` : `const OpenAI = require("openai");`;
    const source = `${probe(format)}
const before = { hooks: loaded(), runtime: runtime() };
${importOpenAI}
const patched = Object.getOwnPropertyDescriptor((OpenAI.OpenAI ?? OpenAI).Chat.Completions.prototype, "create").value[Symbol.for("evaltrace.openai.create")] !== undefined;
console.log(JSON.stringify({ before, after: { hooks: loaded() > 0, runtime: runtime() }, patched }));`;
    const done = await runZeroCode(format, source, { EVALTRACE_API_KEY: "svc_local_proj_startup", EVALTRACE_BASE_URL: "http://127.0.0.1:9" });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe("");
    expect(JSON.parse(done.stdout.trim())).toEqual({ before: { hooks: 0, runtime: false }, after: { hooks: true, runtime: true }, patched: true });
  });

  it("loads a library's hook code at its first module only, and require-in-the-middle at the first require that may reach a hooked package", async () => {
    const importOpenAI = format === "esm" ? `const { default: OpenAI } = await import("openai");` : `const OpenAI = require("openai");`;
    const source = `${probe(format)}
const cache = () => Object.keys(createRequire(process.cwd() + "/x.js").cache);
const state = () => ({ openaiHook: cache().some((k) => k.endsWith("auto-hook-openai.cjs")), langchainHook: cache().some((k) => k.endsWith("auto-hook-langchain.cjs")), requireHook: cache().some((k) => /require-in-the-middle/.test(k)) });
${importOpenAI}
const afterOpenAI = state();
createRequire(process.cwd() + "/x.js")("zod");
const afterOther = state();
const cjs = createRequire(process.cwd() + "/x.js")("openai");
const patchedCjs = Object.getOwnPropertyDescriptor((cjs.OpenAI ?? cjs).Chat.Completions.prototype, "create").value[Symbol.for("evaltrace.openai.create")] !== undefined;
console.log(JSON.stringify({ afterOpenAI, afterOther: afterOther.requireHook, afterRequire: state(), patchedCjs }));`;
    const done = await runZeroCode(format, source, { EVALTRACE_API_KEY: "svc_local_proj_startup", EVALTRACE_BASE_URL: "http://127.0.0.1:9" });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe("");
    // An ESM app's openai comes through the ESM hooks: no require reached a hooked package yet.
    const esm = format === "esm";
    expect(JSON.parse(done.stdout.trim())).toEqual({
      afterOpenAI: { openaiHook: true, langchainHook: false, requireHook: !esm },
      afterOther: !esm,
      afterRequire: { openaiHook: true, langchainHook: false, requireHook: true },
      patchedCjs: true,
    });
  });
});
