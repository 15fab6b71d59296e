import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BASE_URL } from "../../src/config/options.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { flush, observe, shutdown } from "../../src/index.js";
import { formats, runChild } from "../helpers/child.js";
import { configureForTest } from "../helpers/sdk.js";
import { closedAddress } from "../helpers/closed-address.js";

let dev: DevServer | undefined;
afterEach(async () => {
  await shutdown(0);
  await dev?.close();
  dev = undefined;
});

describe("export failures name the address they tried", () => {
  it("nothing listening: the trace's failure names base URL + path", async () => {
    const url = await closedAddress();
    const logger = configureForTest(url, "key-1234", { maxRetries: 0 });
    await observe({ name: "t" }, async () => 1)();
    await flush(5_000);
    expect(logger.lines.filter((l) => l.includes("not delivered") && l.includes(`request to ${url}/v1/traces failed`))).toHaveLength(1);
  });

  it("a refusal (HTTP 401): the warning names the address that answered", async () => {
    dev = await startDevServer({ port: 0 });
    const logger = configureForTest(dev.url, "svc_local_proj_wrong", { maxRetries: 0 });
    await observe({ name: "t" }, async () => 1)();
    await flush(5_000);
    expect(logger.lines.filter((l) => l.includes("not delivered") && l.includes(`${dev!.url}/v1/traces answered HTTP 401`))).toHaveLength(1);
  });

  for (const format of formats) {
    it(`${format}: a key and no base URL: the failure on stderr names ${DEFAULT_BASE_URL}, the address tried`, async () => {
      const child = runChild(
        format,
        `${format === "esm" ? 'import { configure, observe, flush } from "evaltrace";' : 'const { configure, observe, flush } = require("evaltrace");'}
         configure({ maxRetries: 0, registerExitHooks: false });
         await observe({ name: "t" }, async () => 1)();
         const r = await flush(5000);
         console.log("RESULT " + JSON.stringify({ ok: r.ok }));`,
        { EVALTRACE_API_KEY: "key-of-nobody" },
      );
      const done = await child.finished;
      expect(done.stdout).toContain('RESULT {"ok":false}');
      const lines = done.stderr.split("\n").filter((l) => l.includes("not delivered"));
      expect(lines).toHaveLength(1);
      // Whether something listens there (it refuses this key) or nothing does, the address is named.
      expect(lines[0]).toContain(`${DEFAULT_BASE_URL}/v1/traces`);
    });
  }
});
