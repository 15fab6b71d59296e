import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeAnthropic } from "../../../src/fakes/index.js";
import { type Finished, packageRoot } from "../../helpers/child.js";

// Issue 42, class 2, as reported: under `node --import evaltrace/auto`, an app running
// beta.messages.toolRunner({ stream: true }), each turn's stream read to its end and its
// finalMessage() awaited, then exiting without a flush. Both llm spans were force-ended at exit
// (`evaltrace.unfinished`, no output, no tokens, no tool calls) with a warning in its stderr.
// The child loads dist/: build first (npx tsup).

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
  await dev.close();
});

const app = `
import Anthropic from "@anthropic-ai/sdk";
const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
const tool = { name: "lookup_order", description: "Finds an order", input_schema: { type: "object", properties: { orderId: { type: "string" } } }, run: () => "order A-1001 shipped" };
const runner = client.beta.messages.toolRunner({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, max_iterations: 3, tools: [tool], messages: [{ role: "user", content: process.env.MARKER + " Where is my order? Use lookup_order." }] });
const usages = [];
for await (const stream of runner) {
  for await (const _event of stream);
  const { usage } = await stream.finalMessage();
  usages.push([usage.input_tokens, usage.output_tokens]);
}
console.log(JSON.stringify(usages));
`;

function run(marker: string): Promise<Finished> {
  const env = { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_ANTHROPIC: fake.url, MARKER: marker };
  const child = spawn(process.execPath, ["--import", "evaltrace/auto", "--input-type=module", "-e", app], { cwd: packageRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe.skipIf("Bun" in globalThis)("zero-code @anthropic-ai/sdk tool runner, streamed (issue 42)", () => {
  it("each turn's stream read to its end: its llm span ends with output, the tokens the app saw and the tool call; nothing force-ended, nothing in stderr", async () => {
    const f = await run("zero-code-tool-runner");
    expect(f.stderr, "stderr").toBe("");
    expect(f.code).toBe(0);
    const usages = JSON.parse(f.stdout) as [number, number][];
    expect(usages).toHaveLength(2);
    const llm = Object.values(dev.state.traces)
      .flatMap((t) => t.spans)
      // The app's only calls (its second turn sends the tool result only: the thread keeps the history).
      .filter((s) => s.type === "llm")
      .sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
    expect(llm.map((s) => [s.status, s.inputTokenCount, s.outputTokenCount])).toEqual(usages.map(([i, o]) => ["SUCCESS", i, o]));
    for (const s of llm) {
      expect(s.output).toMatch(/./);
      expect(s.metadata ?? {}).not.toHaveProperty(["evaltrace.unfinished"]);
    }
    expect(llm[0]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: expect.any(Object) }]);
  });
});
