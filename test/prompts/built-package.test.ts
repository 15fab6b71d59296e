import { describe, expect, it } from "vitest";
import { formats, hidingPackages, load, runChild } from "../helpers/child.js";
import { runsHere, runtimeName } from "../helpers/skips.js";

// A package is hidden by a preload through NODE_OPTIONS (test/helpers/hide-packages.cjs), which Bun does not read.
const hidesPackages = runsHere(process.versions.bun === undefined, "test/prompts/built-package.test.ts (without @huggingface/jinja)", `hiding a package needs NODE_OPTIONS --require, which ${runtimeName} does not read; Node 20, 22 and 24 run it`);

// The built package (run `npx tsup` first): the JINJA engine (@huggingface/jinja, an optional peer
// dependency) loads at the first JINJA render, not when evaltrace is imported nor for the other
// interpolation types, from the ESM build and from the CommonJS build alike.

/** A child that pushes and pulls prompts through the emulator, then runs `body` and prints its JSON. */
function app(format: (typeof formats)[number], body: string): string {
  return `${load(format, "evaltrace", ["Client", "PromptInterpolationError"])}
${load(format, "@evaltrace/dev", ["startDevServer"])}
${load(format, "node:module", ["createRequire"])}
const jinjaLoaded = () => Object.keys(createRequire(process.cwd() + "/x.js").cache).some((k) => /@huggingface[\\\\/]jinja/.test(k));
const atImport = jinjaLoaded();
const dev = await startDevServer({ port: 0, strict: true });
const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url });
const pulled = async (alias, text, interpolationType) => {
  await client.prompts.push({ alias, text, interpolationType });
  return client.prompts.pull(alias);
};
const fstring = await pulled("f", "Hi {name}", "FSTRING");
const mustache = await pulled("m", "Hi {{name}}", "MUSTACHE");
const jinja = await pulled("g", "{% for x in xs %}{{ x | upper }} {% endfor %}", "JINJA");
const plain = [fstring.interpolate({ name: "Ada" }), mustache.interpolate({ name: "Bo" })];
const afterPlain = jinjaLoaded();
${body}
await client.close();
await dev.close();`;
}

describe.each(formats)("prompts from the built package (%s)", (format) => {
  it("importing evaltrace and FSTRING/MUSTACHE renders load no @huggingface/jinja; a pulled JINJA prompt renders and names a missing variable", async () => {
    const source = app(
      format,
      `const text = jinja.interpolate({ xs: ["a", "b"] });
let missing;
try { jinja.interpolate({}); } catch (e) { missing = e instanceof PromptInterpolationError ? e.variables : String(e); }
console.log(JSON.stringify({ atImport, plain, afterPlain, afterRender: jinjaLoaded(), text, missing }));`,
    );
    const done = await runChild(format, source, { EVALTRACE_TRACING_ENABLED: "false" }).finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout.trim())).toEqual({ atImport: false, plain: ["Hi Ada", "Hi Bo"], afterPlain: false, afterRender: true, text: "A B ", missing: ["xs"] });
  });

  it.skipIf(!hidesPackages)("without @huggingface/jinja installed: the other types render, and a JINJA render throws an Error naming the package and `npm install @huggingface/jinja`", async () => {
    const source = app(
      format,
      `const attempt = () => {
  try {
    return { rendered: jinja.interpolate({ xs: ["a"] }) };
  } catch (e) {
    return { name: e.name, message: e.message, interpolationError: e instanceof PromptInterpolationError, cause: e.cause?.code };
  }
};
console.log(JSON.stringify({ plain, first: attempt(), second: attempt() }));`,
    );
    const done = await runChild(format, source, { EVALTRACE_TRACING_ENABLED: "false", ...hidingPackages("@huggingface/jinja") }).finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const result = JSON.parse(done.stdout.trim()) as { plain: string[]; first: Record<string, unknown>; second: Record<string, unknown> };
    expect(result.plain).toEqual(["Hi Ada", "Hi Bo"]);
    expect(result.first).toEqual({
      name: "Error",
      message: "evaltrace: rendering a JINJA prompt needs @huggingface/jinja, and @huggingface/jinja is not installed (an optional peer dependency of evaltrace, needed only for JINJA prompts). Install it: npm install @huggingface/jinja",
      interpolationError: false,
      cause: "MODULE_NOT_FOUND",
    });
    // Not remembered: installing the package later (or a transient failure) is tried again.
    expect(result.second).toEqual(result.first);
  });
});
