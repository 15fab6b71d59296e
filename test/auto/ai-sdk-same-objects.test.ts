import { describe, expect, it } from "vitest";
import { runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// Issue 42, class 3: zero-code watches a streamText's reads (to end its spans when the app stops
// reading) through the result class's teeStream, not through a property of the result the app
// holds. Before, the result got an own `teeStream` (children load dist/: build first).
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/ai-sdk-same-objects.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

const rig = zeroCodeRig();

const app = `import * as ai from "ai"; import { createOpenAI } from "@ai-sdk/openai"; import { inspect } from "node:util";
const model = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI }).chat("gpt-4o-mini");
const result = ai.streamText({ model, prompt: "When do orders ship? (same-objects)" });
const before = { names: Reflect.ownKeys(result).map(String), proto: Object.getOwnPropertyNames(Object.getPrototypeOf(result)) };
let text = ""; for await (const t of result.textStream) text += t;
const after = { names: Reflect.ownKeys(result).map(String), hidden: inspect(result, { showHidden: true, depth: 0 }).replace(/\\d+/g, "#") };
console.log(JSON.stringify({ before, after, text: text.length > 0 }));
if (globalThis.__evaltraceShutdown) await globalThis.__evaltraceShutdown();`;

describe.skipIf(onBun)("zero-code AI SDK: the streamText result the app holds reads as without evaltrace", () => {
  it("own keys before and after reading, and util.inspect with hidden members, equal a plain run's", async () => {
    const plain = await runChild("esm", app, rig.env()).finished;
    const traced = await rig.runApp("esm", app.replace('import { inspect } from "node:util";', 'import { inspect } from "node:util"; import { shutdown } from "evaltrace"; globalThis.__evaltraceShutdown = shutdown;'));
    expect(plain.stderr, plain.stderr).toBe("");
    expect(traced.stderr, traced.stderr).toBe("");
    const a = JSON.parse(plain.stdout) as unknown;
    const b = JSON.parse(traced.stdout) as unknown;
    expect(b).toEqual(a);
    expect((a as { text: boolean }).text).toBe(true);
    // And the call was traced: its llm span is stored.
    const traces = rig.tracesOf("same-objects");
    expect(traces).toHaveLength(1);
    expect(traces[0]!.filter((s) => s.type === "llm")).toHaveLength(1);
  });
});
