import { APIPromise } from "openai/core/api-promise";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredTrace } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());
afterEach(async () => {
  await shutdown();
});

function storedByName(name: string): StoredTrace {
  const t = Object.values(dev.state.traces).find((x) => x.fields.name === name);
  if (!t) throw new Error(`no trace named ${name}`);
  return t;
}

/** Runs `body` while recording every unhandled rejection of the process. */
async function collectUnhandled(body: () => Promise<void> | void): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => {
    seen.push(reason);
  };
  process.on("unhandledRejection", listener);
  try {
    await body();
    // Node reports unhandled rejections once the microtask queue has drained: give it turns.
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 10));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

describe("observe and promises", () => {
  it("returns the same rejected promise and creates no unhandled rejection when the app handles it", async () => {
    configureForTest(dev.url, dev.projectKey);
    const error = new Error("x");
    let returned: unknown;
    const p = Promise.reject(error);
    p.catch(() => {});
    const seen = await collectUnhandled(() => {
      // The result is ignored, as in fire-and-forget code: the app already handled `p`.
      returned = observe({ name: "handled-rejection" }, () => p)();
    });
    expect(seen).toEqual([]);
    expect(returned).toBe(p);
    expect((await flush()).ok).toBe(true);
    const t = storedByName("handled-rejection");
    expect(t.fields.status).toBe("ERRORED");
    expect(t.spans[0]).toMatchObject({ status: "ERRORED", error: "x" });
  });

  it("returns the very promise an async function made, and the caller still sees its value or error", async () => {
    configureForTest(dev.url, dev.projectKey);
    let inner: Promise<number> | undefined;
    const ok = observe({ name: "same-promise" }, () => {
      inner = (async () => 41 + 1)();
      return inner;
    });
    const result = ok();
    expect(result).toBe(inner);
    expect(await result).toBe(42);
    const boom = new Error("boom");
    let rejected: Promise<never> | undefined;
    const ko = observe({ name: "same-rejected" }, () => {
      rejected = (async () => {
        throw boom;
      })();
      return rejected;
    });
    const seen = await collectUnhandled(async () => {
      const r = ko();
      expect(r).toBe(rejected);
      await expect(r).rejects.toBe(boom);
    });
    expect(seen).toEqual([]);
    expect((await flush()).ok).toBe(true);
    expect(storedByName("same-promise").spans[0]).toMatchObject({ status: "SUCCESS", output: "42" });
    expect(storedByName("same-rejected").spans[0]).toMatchObject({ status: "ERRORED", error: "boom" });
  });

  it("returns a Promise subclass as the same object, with its own methods", async () => {
    configureForTest(dev.url, dev.projectKey);
    class Tracked<T> extends Promise<T> {
      label(): string {
        return "tracked";
      }
    }
    const made = new Tracked<string>((resolve) => setTimeout(() => resolve("done"), 5));
    const result = observe({ name: "subclass" }, () => made)();
    expect(result).toBe(made);
    expect(result).toBeInstanceOf(Tracked);
    expect(result.label()).toBe("tracked");
    expect(await result).toBe("done");
    expect((await flush()).ok).toBe(true);
    expect(storedByName("subclass").spans[0]).toMatchObject({ status: "SUCCESS", output: "done" });
  });

  it("returns openai's APIPromise as the same object, so .withResponse() keeps working", async () => {
    configureForTest(dev.url, dev.projectKey);
    const response = new Response("{}", { headers: { "x-request-id": "req_1" } });
    const props = { response, options: {}, controller: new AbortController(), requestLogID: "log", retryOfRequestLogID: undefined, startTime: Date.now() };
    const make = () =>
      new APIPromise(
        {} as never,
        Promise.resolve(props) as never,
        async () => ({ answer: "hi" }) as never,
      );
    let uuid: string | undefined;
    let made: APIPromise<unknown> | undefined;
    const call = observe({ type: "llm", name: "api-promise", model: "gpt-4o" }, () => {
      uuid = currentTraceUuid();
      made = make();
      return made;
    });
    const result = call();
    expect(result).toBe(made);
    expect(result).toBeInstanceOf(APIPromise);
    const { data, request_id } = await result.withResponse();
    expect(data).toEqual({ answer: "hi" });
    expect(request_id).toBe("req_1");
    expect(await result).toEqual({ answer: "hi" });
    expect((await flush()).ok).toBe(true);
    expect(dev.state.traces[uuid!]!.spans[0]).toMatchObject({ status: "SUCCESS", output: JSON.stringify({ answer: "hi" }) });
  });

  it("observes a rejecting APIPromise without an unhandled rejection when the app handles it", async () => {
    configureForTest(dev.url, dev.projectKey);
    const failing = new APIPromise({} as never, Promise.reject(new Error("429 rate limited")) as never);
    const seen = await collectUnhandled(async () => {
      const result = observe({ name: "api-promise-rejects" }, () => failing)();
      expect(result).toBe(failing);
      await expect(result).rejects.toThrow("429 rate limited");
    });
    expect(seen).toEqual([]);
    expect((await flush()).ok).toBe(true);
    expect(storedByName("api-promise-rejects").spans[0]).toMatchObject({ status: "ERRORED", error: "429 rate limited" });
  });
});
