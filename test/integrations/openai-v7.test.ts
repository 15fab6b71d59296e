import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { packageRoot } from "../helpers/child.js";
import { node22Dir, requireNode22, runsWithNode22 } from "../helpers/node22.js";
import { type HelperSuiteContext, helperMethodTests, zeroCodeHelperTests } from "./openai-helpers.js";
import { runtimeName } from "../helpers/skips.js";

// openai 7 (Node 22+): the same instrumentation, and `withOptions()` clients traced too. On older
// Node this file says so and skips (npm run test:runtimes runs it on Node 22 and 24).
const major = Number(process.versions.node.split(".")[0]);
const supported = runsWithNode22(major >= 22 && !("Bun" in globalThis), "test/integrations/openai-v7.test.ts", `openai 7 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`);

type Client = {
  chat: { completions: { create(b: unknown): Promise<{ choices: { message: { content: string } }[] }> & { asResponse(): Promise<Response> } } };
  withOptions(o: unknown): Client;
  get(path: string): Promise<unknown>;
};
let dev: DevServer;
let fake: FakeOpenAI;
let OpenAI: new (o: unknown) => Client;
let logger: { lines: string[] };
beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  logger = configureForTest(dev.url, dev.projectKey);
  OpenAI = requireNode22("openai-v7");
});
afterAll(async () => {
  if (!supported) return;
  await shutdown(0);
  await fake.close();
  await dev.close();
});

describe.skipIf(!supported)("wrapOpenAI with openai 7", () => {
  it("create, asResponse, #private get and a withOptions() client: spans, and the raw behaviour", async () => {
    const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    let uuid = "";
    await observe({ type: "agent", name: "agent-v7" }, async () => {
      uuid = currentTraceUuid()!;
      const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      expect(r.choices[0]!.message.content).toBe("Orders ship in 2 days.");
      const response = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "raw" }] }).asResponse();
      expect(response.status).toBe(200);
      await response.json();
      expect(await client.get("/models")).toBeDefined();
      const derived = client.withOptions({ timeout: 5000 });
      await derived.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "derived" }] });
    })();
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(3);
    expect(llm.map((s) => (s.input as { content: string }[])[0]!.content).sort()).toEqual(["derived", "hi", "raw"]);
  });
});

describe.skipIf(!supported)("openai 7's helper methods, wrapped: one span per call, ended by the call (issue 31)", () => {
  helperMethodTests(() => ({ dev, fake, logger, OpenAI: OpenAI as unknown as HelperSuiteContext["OpenAI"] }));
});

describe.skipIf(!supported)("openai 7's helper methods, zero-code (issue 31)", () => {
  // A zero-code app imports "openai": here a directory where that name is openai 7 (a link to the
  // `openai-v7` alias in test/node22) and `evaltrace` is this package; --preserve-symlinks keeps the module's
  // path (and so its name, which the module hooks go by) as "openai".
  let app = "";
  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), "evaltrace-openai7-"));
    mkdirSync(join(app, "node_modules"));
    symlinkSync(join(node22Dir, "node_modules", "openai-v7"), join(app, "node_modules", "openai"), "dir");
    symlinkSync(join(packageRoot, "packages", "evaltrace"), join(app, "node_modules", "evaltrace"), "dir");
    // Under --preserve-symlinks, evaltrace (and @evaltrace/auto's hook packages) resolve their
    // dependencies from the app's node_modules: every other package of the repository's is linked there.
    for (const name of readdirSync(join(packageRoot, "node_modules"))) {
      if (name.startsWith(".") || name === "openai" || name === "evaltrace") continue;
      symlinkSync(join(packageRoot, "node_modules", name), join(app, "node_modules", name), "dir");
    }
  });
  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });
  zeroCodeHelperTests("openai 7", () => ({ dev, fake, cwd: app, flags: ["--preserve-symlinks"] }));
});
