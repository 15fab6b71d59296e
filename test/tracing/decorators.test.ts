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

// This file compiles with TypeScript standard decorators (no experimentalDecorators).
class Bot {
  constructor(private readonly prefix: string) {}

  @observe({ type: "tool", description: "looks things up" })
  lookup(q: string): string {
    return `${this.prefix}:${q}`;
  }

  @observe({ type: "agent", name: "bot-run" })
  async run(q: string): Promise<{ answer: string; trace: string }> {
    return { answer: this.lookup(q), trace: currentTraceUuid()! };
  }
}

it("wraps methods with standard decorators, keeping this", async () => {
  const { answer, trace } = await new Bot("p").run("q");
  expect(answer).toBe("p:q");
  await flush();
  const t = dev.state.traces[trace]!;
  const run = t.spans.find((s) => s.name === "bot-run")!;
  expect(t.spans.find((s) => s.name === "lookup")).toMatchObject({ type: "tool", description: "looks things up", parentUuid: run.uuid, output: "p:q" });
  expect(run.type).toBe("agent");
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

it("is compiled as standard decorators (the probe saw 2 arguments)", () => {
  void Probe;
  expect(probeArgs[0]).toHaveLength(2);
});
