import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { flush, observe, shutdown, type FlushResult } from "../../src/index.js";
import { waitUntil } from "../helpers/manual-clock.js";
import { configureForTest } from "../helpers/sdk.js";

// What each flush() waits for: the traces busy when it was called, each of them once, whatever
// other flushes wait at the same time and whatever becomes busy meanwhile.

interface Gate {
  url: string;
  /** Requests received and not answered yet, oldest first. */
  held: { method: string; url: string; spans: number; res: ServerResponse }[];
  /** Answers the oldest held request (200). */
  release(): void;
  close(): Promise<void>;
}

async function startGate(): Promise<Gate> {
  const held: Gate["held"] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as { traces?: unknown[]; baseSpans?: unknown[] };
      held.push({ method: req.method ?? "", url: req.url ?? "", spans: body.traces?.length ?? body.baseSpans?.length ?? 0, res });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    release() {
      const next = held.shift();
      next?.res.writeHead(200, { "content-type": "application/json" }).end('{"success":true}');
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let gate: Gate | undefined;
afterEach(async () => {
  while (gate?.held.length) gate.release();
  await shutdown(0);
  await gate?.close();
  gate = undefined;
});

const settled = (p: Promise<FlushResult>) => {
  const state: { result?: FlushResult } = {};
  void p.then((r) => (state.result = r));
  return state;
};

describe("flush() waits", () => {
  it("for the traces busy when it was called, alongside a later flush that also waits for newer ones", async () => {
    gate = await startGate();
    configureForTest(gate.url, "svc_local_proj_FLUSHWAITS", { batch: { concurrency: 1 } });
    const op = observe({ name: "op" }, (i: number) => i);
    op(1);
    op(2);
    const first = settled(flush(30_000));
    await waitUntil(() => gate!.held.length === 1, "the first batch");
    op(3);
    const second = settled(flush(30_000));
    // The first batch is in flight, the third trace waits for the slot.
    gate.release();
    await waitUntil(() => first.result !== undefined, "the first flush");
    expect(first.result).toMatchObject({ ok: true, delivered: 2, pending: [] });
    expect(second.result).toBeUndefined();
    await waitUntil(() => gate!.held.length === 1, "the second batch");
    gate.release();
    await waitUntil(() => second.result !== undefined, "the second flush");
    expect(second.result).toMatchObject({ ok: true, delivered: 3, pending: [] });
  });

  it("for a late update of a trace already delivered, only when it was called after the late span ended", async () => {
    gate = await startGate();
    configureForTest(gate.url, "svc_local_proj_FLUSHWAITS");
    let finish: () => void = () => {};
    const child = observe({ name: "late child" }, () => new Promise<void>((r) => (finish = r)));
    observe({ name: "root" }, () => {
      void child();
    })();
    const first = settled(flush(30_000));
    await waitUntil(() => gate!.held.length === 1, "the trace");
    gate.release();
    await waitUntil(() => first.result !== undefined, "the first flush");
    expect(first.result).toMatchObject({ ok: true, delivered: 1 });
    // The child ends after its trace was delivered: a PUT, which a new flush waits for.
    finish();
    await waitUntil(() => gate!.held.length === 1, "the late update");
    const second = settled(flush(30_000));
    expect(gate.held[0]).toMatchObject({ method: "PUT" });
    await new Promise((r) => setTimeout(r, 50));
    expect(second.result).toBeUndefined();
    gate.release();
    await waitUntil(() => second.result !== undefined, "the second flush");
    expect(second.result).toMatchObject({ ok: true, delivered: 1, pending: [] });
  });

  it("until its timeout, reporting as pending only what is still busy", async () => {
    gate = await startGate();
    configureForTest(gate.url, "svc_local_proj_FLUSHWAITS", { batch: { concurrency: 1, maxSpansPerRequest: 1 } });
    const op = observe({ name: "op" }, (i: number) => i);
    for (let i = 0; i < 3; i++) op(i);
    const result = flush(300);
    await waitUntil(() => gate!.held.length === 1, "the first request");
    gate.release();
    const r = await result;
    expect(r).toMatchObject({ ok: false, timedOut: true, delivered: 1 });
    expect(r.pending).toHaveLength(2);
  });
});
