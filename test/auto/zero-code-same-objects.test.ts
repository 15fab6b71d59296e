import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeBedrock, type FakeGoogleGenAI, startFakeBedrock, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { type Finished, packageRoot } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { masked } from "../integrations/streams/same-objects.js";

// Issue 42 ("never change an object the app can see"), under zero-code: a @google/genai client (its
// models, chats, a chat) and a Bedrock Runtime client read the same (own keys, descriptors,
// util.inspect with hidden members) in an app run plain and under --import evaltrace/auto, after
// calls that zero-code records. Children load dist/: build first with `npx tsup`.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/zero-code-same-objects.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

let dev: DevServer;
let google: FakeGoogleGenAI;
let bedrock: FakeBedrock;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  [google, bedrock] = await Promise.all([startFakeGoogleGenAI(), startFakeBedrock()]);
});
afterAll(async () => {
  await Promise.all([google.close(), bedrock.close()]);
  await dev.close();
});

function runApp(source: string, preload: boolean): Promise<Finished> {
  const args = [...(preload ? ["--import", "evaltrace/auto"] : []), "--input-type=module", "-e", source];
  const env = {
    PATH: process.env.PATH ?? "",
    EVALTRACE_API_KEY: dev.projectKey,
    EVALTRACE_BASE_URL: dev.url,
    FAKE_GOOGLE: google.url,
    FAKE_BEDROCK: bedrock.url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
  const child = spawn(process.execPath, args, { cwd: packageRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/**
 * The text without what Node's async_hooks put on promises while an AsyncLocalStorage is in use
 * (Node 20: their async ids and the store they were made in, as any OpenTelemetry context
 * manager causes): the promises the SDKs keep are theirs, made in whatever context was current.
 */
function withoutAsyncIds(text: string): string {
  const keys = /, \[Symbol\((async_id_symbol|trigger_async_id_symbol|kResourceStore)\)\]: /g;
  let out = "";
  let at = 0;
  for (let m = keys.exec(text); m; m = keys.exec(text)) {
    if (m.index < at) continue;
    out += text.slice(at, m.index);
    let i = m.index + m[0].length;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === "{" || c === "[") depth++;
      else if ((c === "}" || c === "]") && depth-- === 0) break;
      else if (c === "," && depth === 0) break;
    }
    while (text[i - 1] === " ") i--;
    at = i;
    keys.lastIndex = i;
  }
  return out + text.slice(at);
}

const app = (marker: string) => `
import { inspect } from "node:util";
import { GoogleGenAI } from "@google/genai";
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
const look = (x) => {
  const descriptors = {};
  for (const k of Reflect.ownKeys(x)) descriptors[String(k)] = Object.getOwnPropertyDescriptor(x, k);
  const opts = { showHidden: true, breakLength: Infinity };
  return { keys: Reflect.ownKeys(x).map(String), descriptors: inspect(descriptors, { ...opts, depth: 2 }), inspect: inspect(x, { ...opts, depth: 4 }) };
};
const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: process.env.FAKE_GOOGLE } });
const chat = ai.chats.create({ model: "gemini-2.5-flash" });
const br = new BedrockRuntimeClient({ endpoint: process.env.FAKE_BEDROCK, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 });
const shapes = () => ({ client: look(ai), models: look(ai.models), chats: look(ai.chats), chat: look(chat), bedrock: look(br) });
const before = shapes();
await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "${marker} gemini" });
for await (const _ of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "${marker} gemini stream" }));
await chat.sendMessage({ message: "${marker} chat" });
await br.send(new ConverseCommand({ modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", messages: [{ role: "user", content: [{ text: "${marker} bedrock" }] }] }));
const s = await br.send(new ConverseStreamCommand({ modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", messages: [{ role: "user", content: [{ text: "${marker} bedrock stream" }] }] }));
for await (const _ of s.stream);
br.destroy();
console.log(JSON.stringify({ before, after: shapes() }));
`;

describe.skipIf(onBun)("zero-code leaves the SDKs' clients as they are", () => {
  it("@google/genai (client, models, chats, a chat) and a Bedrock Runtime client read the same plain and under --import evaltrace/auto, before and after the calls it records", async () => {
    const plain = await runApp(app("same-objects"), false);
    const auto = await runApp(app("same-objects"), true);
    for (const f of [plain, auto]) {
      expect(f.stderr, f.stderr).toBe("");
      expect(f.code).toBe(0);
    }
    const read = (f: Finished) => JSON.parse(f.stdout, (_key, value: unknown) => (typeof value === "string" ? masked(withoutAsyncIds(value)) : value)) as unknown;
    expect(read(auto)).toEqual(read(plain));
    const spans = Object.values(dev.state.traces)
      .flatMap((t) => t.spans)
      .filter((sp) => sp.type === "llm" && JSON.stringify(sp.input ?? "").includes("same-objects"));
    expect(spans.map((sp) => sp.name).sort()).toEqual(["bedrock.converse", "bedrock.converse_stream", "gemini.generateContent", "gemini.generateContent", "gemini.generateContentStream"]);
  });
});
