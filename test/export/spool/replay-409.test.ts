import { describe, expect, it } from "vitest";
import type { TransportOutcome } from "../../../src/http/transport.js";
import type { Requests } from "../../../src/export/requests.js";
import { replaySender } from "../../../src/export/spool/replay-send.js";

// A spooled batch replayed after an outage, answered 409 ("already exists"): one of its traces is
// stored already (a part of one upstream trace under a shared traceparent, sent before). Before,
// the whole batch was refused for good and its other traces lost; now each trace goes on its own,
// a stored one's spans appended with PUT.
const ok = (status = 200): TransportOutcome => ({ ok: true, status, body: {}, headers: {}, attempts: 1 });
const fail = (status: number | undefined): TransportOutcome => ({ ok: false, status, message: `status ${status}`, attempts: 1 });

function fakeRequests(answer: (method: string, path: string, body: string) => TransportOutcome) {
  const sent: string[] = [];
  const requests = {
    add: <T>(task: () => Promise<T>) => task(),
    send: async (method: string, path: string, body: Uint8Array | string) => {
      const text = typeof body === "string" ? body : new TextDecoder().decode(body);
      const uuid = (JSON.parse(text) as { uuid?: string }).uuid;
      sent.push(`${method} ${path}${uuid ? ` ${uuid}` : ""}`);
      return answer(method, path, text);
    },
  } as unknown as Requests;
  return { requests, sent };
}

const span = (uuid: string) => ({ uuid, name: "root", startTime: "2026-12-07T00:00:00.000Z", endTime: "2026-12-07T00:00:01.000Z" });
const batch = new TextEncoder().encode(JSON.stringify({ traces: [{ uuid: "t-new", baseSpans: [span("s1")] }, { uuid: "t-stored", baseSpans: [span("s2")] }] }));

describe("a replayed spooled batch answered 409", () => {
  it("is not refused: the new trace is posted on its own, the stored one's spans appended with PUT; ok", async () => {
    const { requests, sent } = fakeRequests((method, _path, body) => {
      if (method === "POST" && body.startsWith('{"traces"')) return fail(409);
      if (method === "POST") return body.includes("t-stored") ? fail(409) : ok();
      return ok();
    });
    expect(await replaySender(requests)(batch, "key-1")).toEqual({ kind: "ok" });
    expect(sent).toEqual(["POST /v1/traces", "POST /v1/traces t-new", "POST /v1/traces t-stored", "PUT /v1/traces/t-stored"]);
  });

  it("a PUT answered 409 (the spans are stored already: this replay's own earlier try) counts as stored", async () => {
    const { requests } = fakeRequests(() => fail(409));
    expect(await replaySender(requests)(batch, "key-1")).toEqual({ kind: "ok" });
  });

  it("is tried again later when a trace gets no answer now (sending no more of it), and refused counting only the refused ones when one is", async () => {
    const noAnswer = fakeRequests((_method, _path, body) => (body.startsWith('{"traces"') ? fail(409) : body.includes("t-new") ? fail(undefined) : ok()));
    expect((await replaySender(noAnswer.requests)(batch, "k")).kind).toBe("retry");
    const refused = fakeRequests((_method, _path, body) => (body.startsWith('{"traces"') ? fail(409) : body.includes("t-new") ? fail(400) : ok()));
    expect(await replaySender(refused.requests)(batch, "k")).toEqual({ kind: "refused", traces: 1, message: expect.stringContaining("1 of 2 traces refused after a 409") });
    // Nothing more is sent once the service stops answering: the rest waits for the next replay.
    expect(noAnswer.sent).toEqual(["POST /v1/traces", "POST /v1/traces t-new"]);
  });
});

// The same against the emulator, behind a proxy that lets it store each request and then loses
// the answer, for every request of the first replay: the replay is tried again, and in the end
// each trace is stored once, a stored trace's new spans appended once.
describe("a replayed spooled batch answered 409, with the first answer of each request lost (the emulator behind a fault proxy)", () => {
  it("is tried again, then delivered: every trace stored once, each span once", async () => {
    const { startDevServer } = await import("../../../src/devserver/index.js");
    const { startFaultProxy } = await import("../../helpers/fault-proxy.js");
    const { KeyedTransport } = await import("../../../src/http/keyed-transport.js");
    const { Requests: RealRequests } = await import("../../../src/export/requests.js");
    const { systemClock } = await import("../../../src/clock.js");
    const dev = await startDevServer({ port: 0 });
    let losing = true;
    const proxy = await startFaultProxy(dev.url, () => (losing ? "store-then-reset" : undefined));
    try {
      const logger = { debug() {}, info() {}, warn() {}, error() {} };
      const transport = new KeyedTransport({ baseUrl: proxy.url, apiKey: dev.projectKey, apiKeyHeader: "SERVICE_API_KEY", requestTimeoutMillis: 5_000, maxRetries: 0, initialRetryDelayMillis: 10, maxRetryDelayMillis: 10, clock: systemClock, logger });
      const requests = new RealRequests(transport, { requests: 0, bytesSent: 0 }, 2);
      // The part of the upstream trace another request stored before the outage ended.
      const stored = await fetch(`${dev.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey }, body: JSON.stringify({ uuid: "t-stored", startTime: "2026-12-07T00:00:00.000Z", endTime: "2026-12-07T00:00:01.000Z", baseSpans: [span("s0")] }) });
      expect(stored.status).toBeLessThan(300);
      const body = new TextEncoder().encode(JSON.stringify({ traces: [trace("t-new", "s1"), trace("t-stored", "s2")] }));
      const send = replaySender(requests);
      const outcomes: string[] = [];
      outcomes.push((await send(body, "spool-key-1")).kind);
      losing = false;
      for (let i = 0; i < 3 && outcomes.at(-1) !== "ok"; i++) outcomes.push((await send(body, "spool-key-1")).kind);
      expect(outcomes).toEqual(["retry", "ok"]);
      const spansOf = (uuid: string) => (dev.state.traces[uuid]?.spans ?? []).map((s) => s.uuid).sort();
      expect(spansOf("t-new")).toEqual(["s1"]);
      expect(spansOf("t-stored")).toEqual(["s0", "s2"]);
    } finally {
      await proxy.close();
      await dev.close();
    }
  });
});

function trace(uuid: string, spanUuid: string) {
  return { uuid, startTime: "2026-12-07T00:00:00.000Z", endTime: "2026-12-07T00:00:01.000Z", baseSpans: [span(spanUuid)] };
}
