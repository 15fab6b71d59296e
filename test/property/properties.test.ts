import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, currentTraceUuid, flush, observe, shutdown, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

let recorder: Recorder | undefined;
let dev: DevServer | undefined;
afterEach(async () => {
  await shutdown(0);
  await recorder?.close();
  await dev?.close();
  recorder = undefined;
  dev = undefined;
});

/**
 * Makers of values that break naive serializers. Makers, not values: fast-check inspects what it
 * generates, and some of these (a revoked proxy) throw on any inspection.
 */
function hostile(): fc.Arbitrary<() => unknown> {
  const special = fc.constantFrom<() => unknown>(
    () => {
      const o: Record<string, unknown> = { a: 1 };
      o.self = o;
      return o;
    },
    () => 2n ** 70n,
    () => Symbol("s"),
    () => new Float64Array([1, 2, 3]),
    () => new Map<unknown, unknown>([[{ k: 1 }, new Set([1])]]),
    () =>
      Object.defineProperty({}, "boom", {
        enumerable: true,
        get() {
          throw new Error("getter");
        },
      }),
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
    () => new Proxy({}, { ownKeys: () => { throw new Error("ownKeys"); } }),
    () => "x".repeat(10 * 1024 * 1024),
    () => ({ toJSON: () => { throw new Error("toJSON"); } }),
    () => Object.create(null),
    () => [Number.NaN, Number.POSITIVE_INFINITY, -0, "a\u0000b"],
    () => new Error("e", { cause: new Error("cause") }),
    () => () => 1,
  );
  const base = fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withDate: true, withSparseArray: true, maxDepth: 4 });
  return fc.oneof(
    { weight: 4, arbitrary: base.map((v) => () => v) },
    { weight: 1, arbitrary: special },
    { weight: 1, arbitrary: fc.array(special, { maxLength: 3 }).map((makers) => () => makers.map((m) => m())) },
  );
}

describe("properties", () => {
  it("any value as input, output, metadata or tags never throws into the app and always goes out as valid JSON within the size limit", async () => {
    recorder = await startRecorder();
    const maxRequestBytes = 2 * 1024 * 1024;
    configureForTest(recorder.url, "svc_local_proj_prop", { batch: { maxRequestBytes } });
    const f = observe({ name: "prop" }, (a: unknown, _b: unknown) => a);
    let calls = 0;
    fc.assert(
      fc.property(hostile(), hostile(), (makeA, makeB) => {
        const a = makeA();
        const b = makeB();
        const g = observe({ type: "tool", name: "inner" }, () => {
          updateCurrentSpan({ metadata: a as Record<string, unknown>, output: b, input: a });
          updateCurrentTrace({ tags: a as string[], metadata: b as Record<string, unknown>, output: a, threadId: b as string });
          return b;
        });
        const h = observe({ name: "outer" }, () => {
          f(a, b);
          return g();
        });
        expect(h()).toBe(b);
        calls++;
      }),
      { numRuns: 150 },
    );
    expect((await flush()).ok).toBe(true);
    const traces = recorder.requests.flatMap((r) => {
      const body = JSON.parse(r.raw) as { traces: { baseSpans: { input?: unknown }[] }[] };
      // Several traces share a request only within the limit; a larger trace goes alone, and
      // captured values are bounded, so even that stays far below the 10 MB inputs.
      if (body.traces.length > 1) expect(Buffer.byteLength(r.raw)).toBeLessThanOrEqual(maxRequestBytes);
      else expect(Buffer.byteLength(r.raw)).toBeLessThan(4 * 1024 * 1024);
      return body.traces;
    });
    expect(traces.length).toBe(calls);
    // Base span input/output are strings on the wire, whatever went in.
    for (const t of traces) for (const s of t.baseSpans) if (s.input !== undefined) expect(typeof s.input).toBe("string");
  });

  it("under any interleaving of concurrent async traces, every span lands in its own trace with a valid parent chain", async () => {
    dev = await startDevServer({ port: 0 });
    configureForTest(dev.url, dev.projectKey);
    type Tree = { children: Tree[] };
    const treeOfDepth = (d: number): fc.Arbitrary<Tree> =>
      d === 0 ? fc.constant({ children: [] }) : fc.record({ children: fc.array(treeOfDepth(d - 1), { maxLength: 3 }) });
    const tree = treeOfDepth(3);
    const count = (t: Tree): number => 1 + t.children.reduce((n, c) => n + count(c), 0);
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(tree, { minLength: 1, maxLength: 6 }), async (s, forest) => {
        const run = (t: Tree, path: string): Promise<string | undefined> =>
          observe({ name: path }, async () => {
            await s.schedule(Promise.resolve(), `enter ${path}`);
            await Promise.all(t.children.map((c, i) => run(c, `${path}.${i}`)));
            await s.schedule(Promise.resolve(), `leave ${path}`);
            return currentTraceUuid();
          })();
        const done = Promise.all(forest.map((t, i) => run(t, `r${i}-${Math.random().toString(36).slice(2, 8)}`)));
        // The scheduler releases the awaits in an order of its choosing until all traces finished.
        const uuids = await s.waitFor(done);
        expect((await flush()).ok).toBe(true);
        uuids.forEach((uuid, i) => {
          const stored = dev!.state.traces[uuid!]!;
          expect(stored.spans).toHaveLength(count(forest[i]!));
          const byUuid = new Map(stored.spans.map((sp) => [sp.uuid, sp]));
          for (const sp of stored.spans) {
            const name = sp.name as string;
            if (!name.includes(".")) {
              expect(sp.parentUuid).toBeUndefined();
              continue;
            }
            const parent = byUuid.get(sp.parentUuid!);
            expect(parent?.name).toBe(name.slice(0, name.lastIndexOf(".")));
          }
        });
      }),
      { numRuns: 40 },
    );
  });

  it("the API key never appears in logs, errors or payloads", async () => {
    const key = fc.stringMatching(/^svc_local_proj_[A-Za-z0-9]{12,24}$/);
    await fc.assert(
      fc.asyncProperty(key, fc.constantFrom(400, 401, 500, 503), async (apiKey, status) => {
        // A careless service that echoes the key back in every answer.
        const echo = await startRecorder((n, req) => (n % 2 === 0 ? { status, body: { success: false, error: `bad key ${req.headers.service_api_key}` } } : { status: 200 }));
        const logger = configureForTest(echo.url, apiKey, { maxRetries: 1, initialRetryDelayMillis: 0, logLevel: "debug" });
        // The app traces a value that happens to contain the key.
        observe({ name: "leaky" }, (env: Record<string, string>) => env.SERVICE_API_KEY)({ SERVICE_API_KEY: apiKey });
        await flush();
        const client = new Client({ apiKey, baseUrl: echo.url, maxRetries: 0, logger });
        const err = await client.metrics.list().then(
          () => undefined,
          (e: unknown) => e,
        );
        await client.close();
        await shutdown(0);
        await echo.close();
        const payloads = echo.requests.map((r) => r.raw).join("\n");
        expect(payloads).not.toContain(apiKey);
        expect(logger.lines.join("\n")).not.toContain(apiKey);
        if (err) expect(JSON.stringify({ message: (err as Error).message, body: (err as { body?: unknown }).body })).not.toContain(apiKey);
        // ...while the header still carried it.
        expect(echo.requests[0]!.headers.service_api_key).toBe(apiKey);
      }),
      { numRuns: 25 },
    );
  });
});
