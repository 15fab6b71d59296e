import { describe, expect, it } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";

// The built package (run `npx tsup` first): the JINJA engine loads at the first JINJA render, not
// when evaltrace is imported, from the ESM build and from the CommonJS build alike.
describe.each(formats)("prompts from the built package (%s)", (format) => {
  it("importing evaltrace loads no @huggingface/jinja; a pulled JINJA prompt renders and names a missing variable", async () => {
    const source = `${load(format, "evaltrace", ["Client", "PromptInterpolationError"])}
${load(format, "@evaltrace/dev", ["startDevServer"])}
${load(format, "node:module", ["createRequire"])}
const jinjaLoaded = () => Object.keys(createRequire(process.cwd() + "/x.js").cache).some((k) => /@huggingface[\\\\/]jinja/.test(k));
const atImport = jinjaLoaded();
const dev = await startDevServer({ port: 0, strict: true });
const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url });
await client.prompts.push({ alias: "g", text: "{% for x in xs %}{{ x | upper }} {% endfor %}", interpolationType: "JINJA" });
const prompt = await client.prompts.pull("g");
const beforeRender = jinjaLoaded();
const text = prompt.interpolate({ xs: ["a", "b"] });
let missing;
try { prompt.interpolate({}); } catch (e) { missing = e instanceof PromptInterpolationError ? e.variables : String(e); }
await client.close();
await dev.close();
console.log(JSON.stringify({ atImport, beforeRender, afterRender: jinjaLoaded(), text, missing }));`;
    const done = await runChild(format, source, { EVALTRACE_TRACING_ENABLED: "false" }).finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout.trim())).toEqual({ atImport: false, beforeRender: false, afterRender: true, text: "A B ", missing: ["xs"] });
  });
});
