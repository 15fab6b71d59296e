import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { waitUntil } from "../helpers/manual-clock.js";
import { runsHere } from "../helpers/skips.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const miniflarePath = `${root}.runtimes/workerd/node_modules/miniflare`;
// `npm run test:runtimes` installs miniflare (with workerd) and sets EVALTRACE_WORKERD: there a
// missing runtime is a failure. A plain `npm test` without it skips this file.
const required = process.env.EVALTRACE_WORKERD === "1";
const available = runsHere(existsSync(miniflarePath) || required, "test/workerd", "no workerd runtime in .runtimes/ (npm run test:runtimes installs it and runs this file)");

type MiniflareLike = { dispatchFetch(url: string): Promise<{ status: number; text(): Promise<string> }>; dispose(): Promise<void> };

let dev: DevServer;
let mf: MiniflareLike;

beforeAll(async () => {
  if (!available) return;
  dev = await startDevServer({ port: 0 });
  const bundle = await build({
    entryPoints: [`${root}test/workerd/worker.ts`],
    bundle: true,
    format: "esm",
    // Bundled like a Worker: browser builds of dependencies (OTel's resource detectors are
    // Node-only), Node built-ins from workerd's nodejs_compat.
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    // What wrangler does for nodejs_compat: CommonJS requires of Node built-ins (OTel's context
    // manager) become workerd's node: modules.
    alias: { async_hooks: `${root}test/workerd/async-hooks.ts`, events: `${root}test/workerd/events.ts` },
    outfile: `${root}.runtimes/workerd/worker.mjs`,
  });
  void bundle;
  const { Miniflare } = createRequire(import.meta.url)(miniflarePath) as { Miniflare: new (o: object) => MiniflareLike };
  mf = new Miniflare({
    // The bundle as one explicit module (as a deployed Worker is), so Miniflare does not scan it.
    modules: [{ type: "ESModule", path: `${root}.runtimes/workerd/worker.mjs`, contents: readFileSync(`${root}.runtimes/workerd/worker.mjs`, "utf8") }],
    compatibilityDate: "2026-07-01",
    compatibilityFlags: ["nodejs_compat"],
    bindings: { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
  });
});
afterAll(async () => {
  if (!available) return;
  await mf?.dispose();
  await dev?.close();
});

describe.skipIf(!available)("the tracing core inside workerd (Cloudflare Workers)", () => {
  it("traces a worker's requests with nested spans and delivers them through ctx.waitUntil", async () => {
    const answers: string[] = [];
    for (const q of ["shipping", "refunds", "returns"]) {
      const res = await mf.dispatchFetch(`http://worker/?q=${q}`);
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    expect(answers[0]).toBe("doc about shipping answers shipping");
    // The responses are back; the traces arrive through waitUntil, over fetch from workerd.
    await waitUntil(() => Object.values(dev.state.traces).filter((t) => t.fields.name === "worker-agent").length === 3, "three traces from workerd");
    for (const t of Object.values(dev.state.traces)) {
      expect(t.fields).toMatchObject({ threadId: "edge-thread", tags: ["workerd"] });
      const root_ = t.spans.find((s) => s.name === "worker-agent")!;
      expect(root_.parentUuid).toBeUndefined();
      expect(t.spans.filter((s) => s.parentUuid === root_.uuid).map((s) => s.type).sort()).toEqual(["llm", "retriever"]);
      expect(t.spans.find((s) => s.type === "llm")).toMatchObject({ model: "gpt-4o-mini", inputTokenCount: 3 });
    }
    // The emulator stores a trace before its answer is back in the worker, where the count is
    // kept: read the worker's stats until the last answer has landed there too.
    const readStats = async () => JSON.parse(await (await mf.dispatchFetch("http://worker/stats")).text()) as { tracesDelivered: number };
    let stats = await readStats();
    for (const deadline = performance.now() + 10_000; stats.tracesDelivered < 3 && performance.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
      stats = await readStats();
    }
    expect(stats).toMatchObject({ tracesDelivered: 3, tracesFailed: 0, tracesDropped: 0 });
  });
});
