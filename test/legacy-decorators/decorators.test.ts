import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

// This folder's tsconfig sets experimentalDecorators: legacy (target, key, descriptor) decorators.
class Retriever {
  constructor(private readonly docs: string[]) {}

  @observe({ type: "retriever", embedder: "text-embedding-3-small", topK: 2 })
  async search(q: string): Promise<string[]> {
    return this.docs.filter((d) => d.includes(q)).slice(0, 2);
  }

  @observe({ name: "legacy-root" })
  async answer(q: string): Promise<{ docs: string[]; trace: string }> {
    return { docs: await this.search(q), trace: currentTraceUuid()! };
  }
}

it("wraps methods with legacy experimentalDecorators, keeping this", async () => {
  const { docs, trace } = await new Retriever(["cat", "catalog", "dog"]).answer("cat");
  expect(docs).toEqual(["cat", "catalog"]);
  await flush();
  const t = dev.state.traces[trace]!;
  const root = t.spans.find((s) => s.name === "legacy-root")!;
  expect(t.spans.find((s) => s.name === "search")).toMatchObject({
    type: "retriever",
    embedder: "text-embedding-3-small",
    topK: 2,
    parentUuid: root.uuid,
    output: ["cat", "catalog"],
  });
});

const probeArgs: unknown[][] = [];
function probe(...args: unknown[]): void {
  probeArgs.push(args);
}
class Probe {
  // biome-ignore lint/suspicious/noExplicitAny: a probe that accepts either decorator calling convention
  @(probe as any)
  m(): void {}
}

it("is compiled as legacy decorators (the probe saw 3 arguments)", () => {
  void Probe;
  expect(probeArgs[0]).toHaveLength(3);
});
