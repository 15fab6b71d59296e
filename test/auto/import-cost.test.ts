import { describe, expect, it } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither,
// so there an app calls the wrap functions itself.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/import-cost.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// `instrument` is exported from the main entry, but importing evaltrace must stay cheap and free
// of side effects: the module hooks (@opentelemetry/instrumentation, require-in-the-middle,
// import-in-the-middle) load only when instrument() or evaltrace/auto turns a library on.
const hooks = /@opentelemetry[\\/]instrumentation|require-in-the-middle|import-in-the-middle/;

describe.skipIf(onBun).each(formats)("importing evaltrace (%s)", (format) => {
  it("loads none of the module-hook machinery until instrument() is called", async () => {
    // Every CommonJS module loaded, from either format (the hooks' packages are CommonJS).
    const source = `${load(format, "evaltrace", ["instrument", "observe"])}
${load(format, "node:module", ["createRequire"])}
const loaded = () => Object.keys(createRequire(process.cwd() + "/x.js").cache).filter((k) => ${hooks}.test(k)).length;
const before = loaded();
observe(() => 1)();
const afterObserve = loaded();
instrument({});
console.log(JSON.stringify({ before, afterObserve, afterInstrument: loaded() }));`;
    const done = await runChild(format, source, { EVALTRACE_TRACING_ENABLED: "false" }).finished;
    expect(done.code).toBe(0);
    const counts = JSON.parse(done.stdout.trim()) as { before: number; afterObserve: number; afterInstrument: number };
    expect(counts.before).toBe(0);
    expect(counts.afterObserve).toBe(0);
    expect(counts.afterInstrument).toBeGreaterThan(0);
  });
});
