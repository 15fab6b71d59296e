import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// The same program through both module systems, resolved by package name through the exports map.
const program = (load: string) => `
${load}
(async () => {
  const dev = await startDevServer({ port: 0 });
  configure({ apiKey: dev.projectKey, baseUrl: dev.url, registerExitHooks: false });
  const f = observe({ type: "llm", model: "m" }, async (q) => "re: " + q);
  await f("hi");
  const r = await flush();
  const t = Object.values(dev.state.traces)[0];
  console.log(JSON.stringify({ ok: r.ok, spans: t.spans.length, type: t.spans[0].type }));
  await dev.close();
})();
`;

describe("the built package (npm test builds it first)", () => {
  it("works with require() (CommonJS)", () => {
    const out = execFileSync(
      process.execPath,
      ["-e", program(`const { configure, observe, flush } = require("evaltrace"); const { startDevServer } = require("evaltrace/devserver");`)],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ ok: true, spans: 1, type: "llm" });
  });

  it("works with import (ESM)", () => {
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", program(`import { configure, observe, flush } from "evaltrace"; import { startDevServer } from "evaltrace/devserver";`)],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ ok: true, spans: 1, type: "llm" });
  });

  it("ships type declarations for both", () => {
    for (const f of ["index.d.ts", "index.d.cts", "devserver.d.ts", "devserver.d.cts"]) expect(existsSync(`${root}/dist/${f}`)).toBe(true);
  });
});
