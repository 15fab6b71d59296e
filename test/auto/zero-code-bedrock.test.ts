import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeBedrock, startFakeBedrock } from "../../src/fakes/index.js";
import { type Finished, type Format, load, packageRoot } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks; Bun has neither (an app there calls wrapBedrock itself).
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/zero-code-bedrock.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// Apps with no evaltrace import, run under `node --import evaltrace/auto` or `node -r
// evaltrace/auto` (children load dist/: build first with `npx tsup`), against the fake Bedrock.

let dev: DevServer;
let fake: FakeBedrock;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeBedrock();
});
afterAll(async () => {
  await fake.close();
  await dev.close();
});

function runApp(format: Format, source: string, env: Record<string, string> = {}): Promise<Finished> {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const args = [format === "esm" ? "--import" : "--require", "evaltrace/auto", ...(format === "esm" ? ["--input-type=module"] : []), "-e", body];
  const fullEnv = {
    PATH: process.env.PATH ?? "",
    EVALTRACE_API_KEY: dev.projectKey,
    EVALTRACE_BASE_URL: dev.url,
    FAKE_BEDROCK: fake.url,
    // The AWS SDK warns on Node 20 that its releases after January 2027 need Node 22.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    ...env,
  };
  const child = spawn(process.execPath, args, { cwd: packageRoot, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The traces whose spans mention `marker`. */
function tracesOf(marker: string): StoredSpan[][] {
  return Object.values(dev.state.traces)
    .map((t) => t.spans)
    .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker)));
}

const app = (format: Format, marker: string) => `
${load(format, "@aws-sdk/client-bedrock-runtime", ["BedrockRuntimeClient", "BedrockRuntime", "ConverseCommand", "ConverseStreamCommand", "InvokeModelCommand"])}
const config = { endpoint: process.env.FAKE_BEDROCK, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 };
const client = new BedrockRuntimeClient(config);
const modelId = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const r = await client.send(new ConverseCommand({ modelId, system: [{ text: "Be brief" }], messages: [{ role: "user", content: [{ text: "${marker}" }] }] }));
const s = await client.send(new ConverseStreamCommand({ modelId, messages: [{ role: "user", content: [{ text: "${marker} stream" }] }] }));
let text = "";
for await (const e of s.stream) text += e.contentBlockDelta?.delta?.text ?? "";
const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 50, messages: [{ role: "user", content: "${marker} invoke" }] });
const i = await client.send(new InvokeModelCommand({ modelId, body }));
const aggregate = new BedrockRuntime(config);
await aggregate.converse({ modelId, messages: [{ role: "user", content: [{ text: "${marker} aggregate" }] }] });
client.destroy();
aggregate.destroy();
console.log(JSON.stringify({ text: r.output.message.content[0].text, same: text === r.output.message.content[0].text, invoked: JSON.parse(new TextDecoder().decode(i.body)).type, own: Object.hasOwn(BedrockRuntimeClient.prototype, "send") }));
`;

describe.skipIf(onBun)("zero-code @aws-sdk/client-bedrock-runtime", () => {
  it.each(["esm", "cjs"] as const)("%s app: Converse, ConverseStream, InvokeModel and the aggregate client's converse are one llm span each, the outputs unchanged", async (format) => {
    const marker = `br-${format}`;
    const f = await runApp(format, app(format, marker));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout)).toEqual({ text: "Orders ship in 2 days.", same: true, invoked: "message", own: true });
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(4);
    for (const spans of traces) expect(spans).toMatchObject([{ type: "llm", status: "SUCCESS", provider: "Bedrock", integration: "Bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0", output: "Orders ship in 2 days." }]);
    expect(traces.flat().map((s) => s.name).sort()).toEqual(["bedrock.converse", "bedrock.converse", "bedrock.converse_stream", "bedrock.invoke_model"]);
    expect(traces.flat().find((s) => JSON.stringify(s.input).includes("Be brief"))?.input).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: marker },
    ]);
  });

  it("EVALTRACE_DISABLE_INSTRUMENTATIONS=bedrock leaves the client alone", async () => {
    const marker = "br-disabled";
    const f = await runApp("esm", app("esm", marker), { EVALTRACE_DISABLE_INSTRUMENTATIONS: "bedrock" });
    expect(f.stderr, f.stderr).toBe("");
    expect(JSON.parse(f.stdout)).toMatchObject({ text: "Orders ship in 2 days.", own: false });
    expect(tracesOf(marker)).toHaveLength(0);
  });
});
