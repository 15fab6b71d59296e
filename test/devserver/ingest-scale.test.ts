import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkHierarchy } from "../../src/devserver/hierarchy.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { TimeSlicer } from "../../src/devserver/time-slicer.js";

let dev: DevServer;
/** 30 MB bodies on a busy 2-core machine: generous time for each test (nothing here is timed). */
const HEAVY = { timeout: 180_000 };

beforeAll(async () => {
  dev = await startDevServer({ port: 0, maxBodyBytes: 64 * 1024 * 1024 });
});
afterAll(() => dev.close());

/** A trace whose spans form one chain (each the child of the one before): the worst case of the parent-chain check. */
function chainedTrace(uuid: string, spans: number): string {
  const start = Date.parse("2026-06-01T10:00:00.000Z");
  const list = Array.from({ length: spans }, (_, i) => ({
    uuid: `${uuid}-s${i}`,
    name: "step",
    startTime: new Date(start + i).toISOString(),
    endTime: new Date(start + spans + 1).toISOString(),
    ...(i > 0 ? { parentUuid: `${uuid}-s${i - 1}` } : {}),
  }));
  return JSON.stringify({ uuid, startTime: new Date(start).toISOString(), endTime: new Date(start + spans + 1).toISOString(), baseSpans: list });
}

const post = (body: string) =>
  fetch(`${dev.url}/v1/traces`, { method: "POST", headers: { SERVICE_API_KEY: dev.projectKey, "content-type": "application/json", "idempotency-key": `k-${body.length}` }, body });

it("ingests chains of 10k, 50k and 200k spans", HEAVY, async () => {
  for (const n of [10_000, 50_000, 200_000]) {
    const res = await post(chainedTrace(`chain-${n}`, n));
    expect(res.status, await res.text()).toBe(200);
  }
  expect(dev.state.traces["chain-200000"]!.spans).toHaveLength(200_000);
  expect(dev.state.spanIndex["chain-200000-s199999"]).toBe("chain-200000");
});

it("checks the parent chain in linear work: one parent link followed per span, whatever the shape", HEAVY, async () => {
  // Work is counted, not timed (times are measured in bench/emulator-ingest.mjs). A check that
  // walked each span's chain to its root would follow n(n+1)/2 links for a chain.
  const spans = (n: number) => (JSON.parse(chainedTrace("c", n)) as { baseSpans: StoredSpan[] }).baseSpans;
  for (const n of [1_000, 10_000, 100_000]) {
    const chain = spans(n);
    expect(await checkHierarchy("c", [], chain, "body", new TimeSlicer())).toBe(n);
    // Deepest span first: the first walk goes all the way up, every later one stops at once.
    expect(await checkHierarchy("c", [], [...chain].reverse(), "body", new TimeSlicer())).toBe(n);
    // New spans under stored ones: the stored part is never walked.
    expect(await checkHierarchy("c", chain.slice(0, n / 2), chain.slice(n / 2), "body", new TimeSlicer())).toBe(n / 2);
  }
});

it("rejects a cycle in a long chain, and keeps the event loop free while it checks", HEAVY, async () => {
  const trace = JSON.parse(chainedTrace("cycle", 20_000)) as { baseSpans: { parentUuid?: string }[] };
  trace.baseSpans[0]!.parentUuid = "cycle-s19999";
  const res = await post(JSON.stringify(trace));
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: string }).error).toMatch(/cycle|starts before its parent/);
});

it("answers small requests while a 200k-span trace is ingested: more than 3 of them, and the event loop never held over 1 s at once", HEAVY, async () => {
  const body = chainedTrace("busy", 200_000);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const small: number[] = [];
  let done = false;
  const big = post(body).then(async (r) => {
    done = true;
    return r.status;
  });
  while (!done) {
    const started = performance.now();
    const r = await fetch(`${dev.url}/_dev/version`);
    await r.json();
    small.push(performance.now() - started);
  }
  delay.disable();
  expect(await big).toBe(200);
  const maxDelay = delay.max / 1e6;
  const worst = Math.max(...small);
  console.log(`event loop: max delay ${maxDelay.toFixed(0)} ms during ingest; ${small.length} small requests, slowest ${worst.toFixed(0)} ms`);
  // Other requests were answered while it ingested (before slicing, the quadratic check held the
  // loop for minutes). The bound is loose for a loaded 2-core machine (about 170 ms measured
  // there); the ~100 ms target is measured in bench/emulator-ingest.mjs.
  expect(small.length).toBeGreaterThan(3);
  expect(maxDelay).toBeLessThan(1_000);
});
