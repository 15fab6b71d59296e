import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
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
      ["-e", program(`const { configure, observe, flush } = require("evaltrace"); const { startDevServer } = require("@evaltrace/dev");`)],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ ok: true, spans: 1, type: "llm" });
  });

  it("works with import (ESM)", () => {
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", program(`import { configure, observe, flush } from "evaltrace"; import { startDevServer } from "@evaltrace/dev";`)],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ ok: true, spans: 1, type: "llm" });
  });

  it("the CommonJS build keeps `?.` and `??` as written: no file of dist/ calls sucrase's _optionalChain or _nullishCoalesce helpers", () => {
    // tsup's own CommonJS chunks (sucrase) allocate an array and closures for each; Rollup's
    // (treeshake in tsup.config.ts) keep the syntax (docs/performance.md, "The CommonJS build").
    const withHelpers = ["packages/evaltrace/dist", "packages/dev/dist"].flatMap((dir) =>
      readdirSync(`${root}/${dir}`)
        .filter((f) => f.endsWith(".cjs"))
        .filter((f) => /_optionalChain\(|_nullishCoalesce\(/.test(readFileSync(`${root}/${dir}/${f}`, "utf8")))
        .map((f) => `${dir}/${f}`),
    );
    expect(withHelpers).toEqual([]);
  });

  it("ships type declarations for both", () => {
    for (const f of ["evaltrace/dist/index.d.ts", "evaltrace/dist/index.d.cts", "dev/dist/index.d.ts", "dev/dist/index.d.cts", "dev/dist/fakes.d.ts", "dev/dist/fakes.d.cts"]) expect(existsSync(`${root}/packages/${f}`)).toBe(true);
  });

  // A fake answers through @evaltrace/dev/fakes in both formats.
  const fakeProgram = (load: string) => `${load}
(async () => {
  const fake = await fakes.startFakeOpenAI();
  const res = await fetch(fake.url + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
  const body = await res.json();
  await fake.close();
  console.log(JSON.stringify({ reply: body.choices[0].message.content === fakes.FAKE_REPLY, requests: fake.requests.length }));
})();
`;

  for (const [format, args, load] of [
    ["require() (CommonJS)", [], `const fakes = require("@evaltrace/dev/fakes");`],
    ["import (ESM)", ["--input-type=module"], `import * as fakes from "@evaltrace/dev/fakes";`],
  ] as const) {
    it(`@evaltrace/dev/fakes answers with ${format}`, () => {
      const out = execFileSync(process.execPath, [...args, "-e", fakeProgram(load)], { cwd: root, encoding: "utf8" });
      expect(JSON.parse(out)).toEqual({ reply: true, requests: 1 });
    });
  }
});
