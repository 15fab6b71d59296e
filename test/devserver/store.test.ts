import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";

/** An id named like the prototype accessor, read as a plain key. */
const PROTO = "__proto__";
const T0 = "2026-06-01T10:00:00.000Z";
const T1 = "2026-06-01T10:00:01.000Z";
const dir = mkdtempSync(join(tmpdir(), "evaltrace-store-"));
let n = 0;
const dataFile = () => join(dir, `state-${n++}.jsonl`);

let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});
const start = async (options: DevServerOptions) => {
  await dev?.close();
  dev = await startDevServer({ port: 0, strict: true, ...options });
  return apiFor(dev);
};
const trace = (uuid: string, extra: Record<string, unknown> = {}) => ({ uuid, startTime: T0, endTime: T1, ...extra });

describe("--data journal", () => {
  it("keeps every acknowledged write across a restart, ids like __proto__ included, one line per write", async () => {
    const file = dataFile();
    let api = await start({ dataFile: file });
    for (const uuid of ["a", "__proto__", "constructor"]) await api("POST", "/v1/traces", trace(uuid, { threadId: uuid, userId: "u" }));
    await api("PUT", "/v1/traces/a", { tags: ["x"] });
    await api("POST", "/v2/prompts", { alias: "toString", text: "hi" });
    await api("POST", "/v2/datasets", { alias: "__proto__", goldens: [{ input: "q" }] });
    await api("POST", "/v1/metric-collections", { name: "c", multiTurn: false });
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.length).toBeLessThan(20);
    api = await start({ dataFile: file });
    expect(Object.keys(dev!.state.traces).sort()).toEqual(["__proto__", "a", "constructor"]);
    expect(dev!.state.traces.a!.fields.tags).toEqual(["x"]);
    expect(dev!.state.threads[PROTO]).toEqual(["__proto__"]);
    expect(dev!.state.users.u).toEqual(["a", "__proto__", "constructor"]);
    const builtinName = "toString"; // a name every plain object has: the store must not mistake it
    expect(dev!.state.prompts[builtinName]!.alias).toBe("toString");
    expect(dev!.state.datasets[PROTO]!.unversioned).toHaveLength(1);
    expect(dev!.state.collections.map((c) => c.name)).toEqual(["c"]);
    expect((await api("GET", "/v1/metrics")).status).toBe(200); // the same keys
  });

  it("loads the former whole-state file format and converts it", async () => {
    const file = dataFile();
    await start({});
    const api = apiFor(dev!);
    await api("POST", "/v1/traces", trace("old", { threadId: "t" }));
    const key = dev!.projectKey;
    writeFileSync(file, JSON.stringify(dev!.state));
    await start({ dataFile: file });
    expect(dev!.projectKey).toBe(key);
    expect(dev!.state.threads.t).toEqual(["old"]);
    expect(readFileSync(file, "utf8").split("\n")[0]).toMatch(/^\{"t":"meta"/);
  });

  it("drops a torn last line (a write that was never acknowledged)", async () => {
    const file = dataFile();
    const api = await start({ dataFile: file });
    await api("POST", "/v1/traces", trace("kept"));
    await dev!.close();
    dev = undefined;
    writeFileSync(file, `${readFileSync(file, "utf8")}{"t":"trace","v":{"uuid":"torn"`);
    const again = await start({ dataFile: file });
    expect(Object.keys(dev!.state.traces)).toEqual(["kept"]);
    await again("POST", "/v1/traces", trace("after"));
    await start({ dataFile: file });
    expect(Object.keys(dev!.state.traces)).toEqual(["kept", "after"]);
  });

  it("compacts the journal when it grows past a multiple of the live data", async () => {
    const file = dataFile();
    const logs: string[] = [];
    const api = await start({ dataFile: file, log: (l) => logs.push(l) });
    await api("POST", "/v1/traces", trace("big"));
    // Many updates of one trace: the journal grows, the live data barely.
    for (let i = 0; i < 60; i++) await api("PUT", "/v1/traces/big", { metadata: { [`k${i}`]: "x".repeat(20_000) } });
    expect(logs.some((l) => l.startsWith("compacted"))).toBe(true);
    await start({ dataFile: file });
    expect(Object.keys(dev!.state.traces.big!.fields.metadata as object)).toHaveLength(60);
  });
});

describe("a --data store larger than memory", () => {
  const HELD = 5;
  const spans = (uuid: string) => [
    { uuid: `${uuid}-root`, name: "root", startTime: T0, endTime: T1 },
    { uuid: `${uuid}-child`, name: "child", parentUuid: `${uuid}-root`, startTime: T0, endTime: T1 },
  ];
  /** 40 traces: two threads, tags on every 10th, a findable input on each. */
  async function fill(api: ReturnType<typeof apiFor>) {
    for (let i = 0; i < 40; i++) {
      const r = await api("POST", "/v1/traces", trace(`t${i}`, { threadId: `th${i % 2}`, userId: "u", input: `needle-${i}`, ...(i % 10 === 0 ? { tags: ["tenth"] } : {}), baseSpans: spans(`t${i}`) }));
      expect(r.status).toBe(200);
    }
  }
  const pageAll = async (path: string, read: (body: unknown) => string[]) => {
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const res: Response = await fetch(`${dev!.url}${path}${path.includes("?") ? "&" : "?"}limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...read(await res.json()));
      cursor = res.headers.get("x-next-cursor");
    }
    return seen;
  };
  const newestFirst = Array.from({ length: 40 }, (_, i) => `t${39 - i}`);

  it("holds only the recent traces, reads the others from the file, and serves every read and update", async () => {
    const file = dataFile();
    let api = await start({ dataFile: file, heldTraces: HELD });
    await fill(api);
    expect(dev!.tracesInMemory).toBeLessThanOrEqual(HELD);
    // Reads of traces long out of memory: one, every page, the viewer's list, search and filters.
    const old = (await api("GET", "/_dev/traces/t3")).body as { spans: { uuid: string }[]; input: string };
    expect(old.input).toBe("needle-3");
    expect(old.spans.map((x) => x.uuid)).toEqual(["t3-root", "t3-child"]);
    expect(await pageAll("/_dev/traces", (b) => (b as { uuid: string }[]).map((t) => t.uuid))).toEqual(newestFirst);
    const rows = (b: unknown) => (b as { rows: { uuid: string }[] }).rows.map((r) => r.uuid);
    expect(await pageAll("/_dev/view/traces", rows)).toEqual(newestFirst);
    expect(await pageAll("/_dev/view/traces?q=needle-7", rows)).toEqual(["t7"]);
    expect(await pageAll("/_dev/view/traces?tag=tenth", rows)).toEqual(["t30", "t20", "t10", "t0"]);
    expect(await pageAll("/_dev/view/traces?q=t5-child", rows)).toEqual(["t5"]);
    expect(((await api("GET", "/_dev/view/facets")).body as { tags: string[] }).tags).toEqual(["tenth"]);
    expect(((await api("GET", "/_dev/view/threads/th1")).body as { turns: unknown[] }).turns).toHaveLength(20);
    expect(dev!.tracesInMemory).toBeLessThanOrEqual(HELD);
    // An update of a trace that is only in the file, and an evaluation of one of its spans.
    expect((await api("PUT", "/v1/traces/t0", { tags: ["late"], baseSpans: [{ uuid: "t0-late", name: "late", parentUuid: "t0-root", startTime: T0, endTime: T1 }] })).status).toBe(200);
    expect((await api("POST", "/v1/evaluate/spans/t1-child", { metricCollection: "none" })).status).not.toBe(500);
    expect(((await api("GET", "/_dev/view/traces/t0")).body as { tags: string[]; spanCount: number })).toMatchObject({ tags: ["tenth", "late"], spanCount: 3 });
    // After a restart: the same traces, indexes and order, still not all in memory.
    api = await start({ dataFile: file, heldTraces: HELD });
    expect(Object.keys(dev!.state.traces)).toEqual([...newestFirst].reverse());
    expect(dev!.tracesInMemory).toBeLessThanOrEqual(HELD);
    expect(dev!.state.traces.t0!.fields.tags).toEqual(["tenth", "late"]);
    expect(dev!.state.traces.t0!.spans.map((x) => x.uuid)).toEqual(["t0-root", "t0-child", "t0-late"]);
    expect(dev!.state.spanIndex["t0-late"]).toBe("t0");
    expect(dev!.state.threads.th0).toHaveLength(20);
    expect(await pageAll("/_dev/view/traces?q=needle-12", rows)).toEqual(["t12"]);
  });

  it("compacts with most traces only in the file, and reads them from the new file after", async () => {
    const file = dataFile();
    const logs: string[] = [];
    const api = await start({ dataFile: file, heldTraces: HELD, log: (l) => logs.push(l) });
    await fill(api);
    for (let i = 0; i < 60; i++) await api("PUT", "/v1/traces/t39", { metadata: { [`k${i}`]: "x".repeat(20_000) } });
    expect(logs.some((l) => l.startsWith("compacted"))).toBe(true);
    expect(((await api("GET", "/_dev/traces/t1")).body as { input: string }).input).toBe("needle-1");
    expect(await pageAll("/_dev/traces", (b) => (b as { uuid: string }[]).map((t) => t.uuid))).toEqual(newestFirst);
    await start({ dataFile: file, heldTraces: HELD });
    expect(Object.keys(dev!.state.traces.t39!.fields.metadata as object)).toHaveLength(60);
    expect(dev!.state.traces.t2!.fields.input).toBe("needle-2");
  });

  it("evicts beyond --max-traces by reading the evicted traces' spans from the file", async () => {
    const file = dataFile();
    const api = await start({ dataFile: file, heldTraces: HELD, maxTraces: 30 });
    await fill(api);
    expect(Object.keys(dev!.state.traces)).toHaveLength(30);
    expect(dev!.state.spanIndex["t9-root"]).toBeUndefined();
    expect(dev!.state.spanIndex["t10-root"]).toBe("t10");
    expect(dev!.state.threads.th0).toHaveLength(15);
    await start({ dataFile: file, heldTraces: HELD, maxTraces: 30 });
    expect(Object.keys(dev!.state.traces)).toEqual(newestFirst.slice(0, 30).reverse());
    expect(dev!.state.spanIndex["t9-child"]).toBeUndefined();
  });
});

describe("--max-traces and paged reads", () => {
  it("evicts the oldest traces beyond the bound, counts them, and pages the newest first", async () => {
    const logs: string[] = [];
    const api = await start({ maxTraces: 5, log: (l) => logs.push(l) });
    for (let i = 0; i < 8; i++) await api("POST", "/v1/traces", trace(`t${i}`, { threadId: "th", baseSpans: [{ uuid: `s${i}`, name: "s", startTime: T0, endTime: T1 }] }));
    expect(Object.keys(dev!.state.traces)).toEqual(["t3", "t4", "t5", "t6", "t7"]);
    expect(dev!.evictedTraces).toBe(3);
    expect(dev!.state.spanIndex.s0).toBeUndefined();
    expect(dev!.state.threads.th).toEqual(["t3", "t4", "t5", "t6", "t7"]);
    expect(logs.some((l) => /evicted the 1 oldest trace\(s\) beyond --max-traces 5; 3 evicted/.test(l))).toBe(true);
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const res: Response = await fetch(`${dev!.url}/_dev/traces?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...((await res.json()) as { uuid: string }[]).map((t) => t.uuid));
      cursor = res.headers.get("x-next-cursor");
    }
    expect(seen).toEqual(["t7", "t6", "t5", "t4", "t3"]);
    expect((await fetch(`${dev!.url}/_dev/traces?limit=0`)).status).toBe(400);
    expect((await fetch(`${dev!.url}/_dev/traces?cursor=abc`)).status).toBe(400);
    expect(((await (await fetch(`${dev!.url}/_dev/version`)).json()) as { evictedTraces: number }).evictedTraces).toBe(3);
  });
});

describe("crash safety", () => {
  const bundle = join(dir, "emulator.mjs");
  buildSync({ entryPoints: [new URL("../../src/devserver/index.ts", import.meta.url).pathname], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
  const childScript = join(dir, "child.mjs");
  writeFileSync(
    childScript,
    `import { startDevServer } from ${JSON.stringify(bundle)};
const dev = await startDevServer({ port: 0, dataFile: process.argv[2], strict: true, heldTraces: 10 });
process.stdout.write(JSON.stringify({ url: dev.url, key: dev.projectKey }) + "\\n");`,
  );

  async function spawnEmulator(file: string): Promise<{ child: ChildProcess; url: string; key: string }> {
    const child = spawn(process.execPath, [childScript, file], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.on("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    });
    return { child, ...(JSON.parse(line) as { url: string; key: string }) };
  }

  it("loses nothing acknowledged when SIGKILLed during ingest, twice", async () => {
    const file = dataFile();
    const acknowledged = new Set<string>();
    let key = "";
    for (let round = 0; round < 3; round++) {
      const emulator = await spawnEmulator(file);
      if (key) expect(emulator.key).toBe(key);
      key = emulator.key;
      if (round === 2) {
        const res = await fetch(`${emulator.url}/_dev/traces`);
        const stored = new Set(((await res.json()) as { uuid: string }[]).map((t) => t.uuid));
        for (const uuid of acknowledged) expect(stored.has(uuid), uuid).toBe(true);
        const exited = new Promise((r) => emulator.child.once("exit", r));
        emulator.child.kill("SIGKILL");
        await exited;
        break;
      }
      // Several clients send traces; the emulator is killed while requests are in flight.
      let stop = false;
      const client = async (c: number) => {
        for (let i = 0; !stop; i++) {
          const uuid = `r${round}-c${c}-${i}`;
          const body = JSON.stringify({ uuid, startTime: T0, endTime: T1, baseSpans: Array.from({ length: 20 }, (_, s) => ({ uuid: `${uuid}-${s}`, name: "s", startTime: T0, endTime: T1 })) });
          try {
            const res = await fetch(`${emulator.url}/v1/traces`, { method: "POST", headers: { SERVICE_API_KEY: key, "content-type": "application/json" }, body });
            if (res.status === 200) acknowledged.add(uuid);
          } catch {
            return; // killed mid-request: not acknowledged
          }
        }
      };
      const exited = new Promise((r) => emulator.child.once("exit", r));
      const clients = [0, 1, 2, 3].map(client);
      await new Promise((r) => setTimeout(r, 400 + round * 150));
      emulator.child.kill("SIGKILL");
      stop = true;
      await Promise.all(clients);
      await exited;
    }
    expect(acknowledged.size).toBeGreaterThan(20);
  });
});
