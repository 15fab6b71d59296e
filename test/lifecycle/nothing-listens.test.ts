import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { formats, runChild } from "../helpers/child.js";

// Issue 48, item 9: with a key set and nothing listening at the address (the emulator not
// started), the quick start's app does not hang in flush() waiting out retries that cannot
// succeed: it ends at once with one line naming the address and the fix. Once anything has
// answered, an outage is waited out as before.

let deadUrl: string;
let dev: DevServer;
beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  deadUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

const quickStart = (imports: string) => `${imports}
const answer = observe({ type: "llm", name: "answer", model: "gpt-4o-mini" }, async (q) => "Orders ship within 2 days.");
const bot = observe({ type: "agent", name: "support-bot" }, async (q) => answer(q));
console.log(await bot("When will my order ship?"));
const result = await flush();
console.log(JSON.stringify({ pending: result.pending.length, nothingAnswers: result.nothingAnswers }));
`;

describe("nothing listens at the base URL (issue 48)", () => {
  for (const format of formats) {
    it(`${format}: flush() returns at once with the trace pending and the reason; the process ends within 3 s with one stderr line naming the address and the fix`, async () => {
      const imports = format === "esm" ? 'import { flush, observe } from "evaltrace";' : 'const { flush, observe } = require("evaltrace");';
      const started = Date.now();
      const done = await runChild(format, quickStart(imports), { EVALTRACE_API_KEY: "k", EVALTRACE_BASE_URL: deadUrl }).finished;
      const took = Date.now() - started;
      expect(done.code).toBe(0);
      const [reply, flushed] = done.stdout.trim().split("\n");
      expect(reply).toBe("Orders ship within 2 days.");
      expect(JSON.parse(flushed!)).toEqual({ pending: 1, nothingAnswers: expect.stringContaining("ECONNREFUSED") });
      expect(done.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(
          new RegExp(`^\\[evaltrace\\] the process exited with 1 trace\\(s\\) not delivered: nothing answers at ${deadUrl.replaceAll(".", "\\.")} \\([^)]*ECONNREFUSED[^)]*\\): start the emulator \\(npx evaltrace dev\\), or set EVALTRACE_BASE_URL to the service's address\\.$`),
        ),
      ]);
      expect(took).toBeLessThan(3_000);
    });
  }

  it("an address that answered once: a flush still waits for its retries (an outage, not a wrong address)", async () => {
    // The emulator answers the first trace; the second flush goes to it too and is delivered.
    const source = `import { flush, observe } from "evaltrace";
const step = observe({ name: "step" }, async () => 1);
await step();
const first = await flush();
await step();
const second = await flush();
console.log(JSON.stringify({ first: first.delivered, second: second.delivered, nothing: second.nothingAnswers ?? null }));`;
    const done = await runChild("esm", source, { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url }).finished;
    expect(done.stderr).toBe("");
    expect(JSON.parse(done.stdout.trim())).toEqual({ first: 1, second: 1, nothing: null });
  });
});
