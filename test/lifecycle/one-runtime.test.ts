import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { type Format, runChild } from "../helpers/child.js";

// Lifecycle issue, defect 2: exactly one runtime per process, whatever the module format.
// Before the fix, `require("evaltrace").configure()` then `require("evaltrace/openai")` recorded
// nothing (each CommonJS bundle carried its own runtime), and ESM and CommonJS copies never met.
let dev: DevServer;
let fake: FakeOpenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
  await dev.close();
});

/**
 * An app that configures the SDK through one module format and uses every entry point through
 * another: the core (observe), the OpenAI, LangChain and OpenAI Agents integrations.
 */
function app(configureWith: Format, useWith: Format, name: string): string {
  return `
    import { createRequire } from "node:module";
    const require = createRequire(process.cwd() + "/");
    const get = (format, spec) => (format === "cjs" ? require(spec) : import(spec));
    const core = await get("${configureWith}", "evaltrace");
    // Only configure() knows the key: no environment variable lets another copy get by alone.
    core.configure({ apiKey: process.env.KEY, baseUrl: process.env.URL, registerExitHooks: false });
    const { observe, stats } = await get("${useWith}", "evaltrace");
    const { wrapOpenAI } = await get("${useWith}", "evaltrace/openai");
    const { EvaltraceCallbackHandler } = await get("${useWith}", "evaltrace/langchain");
    const { EvaltraceTracingProcessor } = await get("${useWith}", "evaltrace/openai-agents");
    const { default: OpenAI } = await import("openai");
    const { RunnableLambda } = await import("@langchain/core/runnables");
    const agents = await import("@openai/agents");

    const client = new OpenAI({ apiKey: "sk-offline", baseURL: process.env.FAKE_OPENAI });
    const openai = wrapOpenAI(client);
    const handler = new EvaltraceCallbackHandler();
    const agent = observe({ type: "agent", name: "${name}" }, async (q) => {
      const reply = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: q }] });
      const shout = await RunnableLambda.from((s) => s.toUpperCase()).invoke(reply.choices[0].message.content, { callbacks: [handler] });
      return shout;
    });
    await agent("hello");

    agents.setDefaultOpenAIClient(client);
    agents.setOpenAIAPI("chat_completions");
    agents.setTraceProcessors([new EvaltraceTracingProcessor()]);
    agents.setTracingDisabled(false);
    await agents.run(new agents.Agent({ name: "${name}-agents", instructions: "Be brief", model: "gpt-4o-mini" }), "hi");

    const result = await core.flush();
    console.log("RESULT " + JSON.stringify({ ok: result.ok, same: stats().tracesDelivered === core.stats().tracesDelivered }));
  `;
}

describe("one runtime per process", () => {
  for (const [configureWith, useWith] of [
    ["cjs", "cjs"],
    ["cjs", "esm"],
    ["esm", "cjs"],
    ["esm", "esm"],
  ] as const) {
    it(`configure() through ${configureWith}, every entry point through ${useWith}`, async () => {
      const name = `mixed-${configureWith}-${useWith}`;
      const child = runChild("esm", app(configureWith, useWith, name), { KEY: dev.projectKey, URL: dev.url, FAKE_OPENAI: fake.url });
      const done = await child.finished;
      expect(done.stderr).not.toContain("no API key");
      expect(done.stdout).toContain(`RESULT {"ok":true,"same":true}`);
      expect(done.code).toBe(0);
      const traces = Object.values(dev.state.traces);
      const observed = traces.filter((t) => t.fields.name === name);
      expect(observed).toHaveLength(1);
      // The wrapped OpenAI call and the LangChain run nest inside the observe() agent.
      const types = observed[0]!.spans.map((s) => s.type).sort();
      expect(types).toEqual(["agent", "base", "llm"]);
      // The Agents SDK run is a trace of its own, with its agent span.
      const run = traces.filter((t) => t.spans.some((s) => s.name === `${name}-agents`));
      expect(run).toHaveLength(1);
    });
  }

  it("one clock for both copies: a CommonJS child never starts before its ESM parent (found in review)", async () => {
    const child = runChild(
      "esm",
      `import { createRequire } from "node:module";
       const require = createRequire(process.cwd() + "/");
       const esm = await import("evaltrace");
       await new Promise((r) => setTimeout(r, 7)); // the two copies load at different times
       const cjs = require("evaltrace");
       esm.configure({ apiKey: process.env.KEY, baseUrl: process.env.URL, registerExitHooks: false });
       const inner = cjs.observe({ name: "child" }, () => 1);
       const outer = esm.observe({ name: "anchor-parent" }, () => inner());
       for (let i = 0; i < 200; i++) outer();
       const r = await esm.flush();
       console.log("RESULT " + JSON.stringify({ delivered: r.delivered, failed: r.notDelivered.length }));`,
      { KEY: dev.projectKey, URL: dev.url },
    );
    const done = await child.finished;
    expect(done.stdout).toContain(`RESULT {"delivered":200,"failed":0}`);
  });

  it("shares the registry between the ESM and CommonJS builds, version-checked", () => {
    const child = runChild(
      "esm",
      `import { createRequire } from "node:module";
       const require = createRequire(process.cwd() + "/");
       const esm = await import("evaltrace");
       esm.configure({ apiKey: "k", registerExitHooks: false, logLevel: "silent" });
       const cjs = require("evaltrace");
       const registry = globalThis[Symbol.for("evaltrace.registry")];
       console.log("RESULT " + JSON.stringify({ version: registry.version, enabled: cjs.stats().enabled, pkg: require("evaltrace/package.json").version }));`,
    );
    return child.finished.then((done) => {
      const line = done.stdout.split("\n").find((l) => l.startsWith("RESULT "));
      expect(line, done.stderr).toBeDefined();
      const out = JSON.parse(line!.slice(7));
      expect(out.enabled).toBe(true);
      expect(out.version).toBe(out.pkg);
    });
  });

  it("keeps a copy of another version apart, with a warning", async () => {
    const child = runChild(
      "cjs",
      `Object.defineProperty(globalThis, Symbol.for("evaltrace.registry"), { value: { version: "0.0.1-other", current: undefined } });
       const { configure, stats } = require("evaltrace");
       configure({ apiKey: "k", registerExitHooks: false, logLevel: "silent" });
       console.log("RESULT " + stats().enabled + " " + globalThis[Symbol.for("evaltrace.registry")].version);`,
    );
    const done = await child.finished;
    expect(done.stdout).toContain("RESULT true 0.0.1-other");
    expect(done.stderr).toContain("two versions of evaltrace are loaded (0.0.1-other and");
  });
});
