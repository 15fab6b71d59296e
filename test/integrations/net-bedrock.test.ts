import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelCommand, InvokeModelWithResponseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeBedrock, startFakeBedrock } from "../../src/fakes/index.js";
import { currentTraceUuid, deliver, flush, observe, shutdown, stats } from "../../src/index.js";
import { wrapBedrock } from "../../src/integrations/bedrock/index.js";
import { claimSdk, netBedrock } from "../../src/integrations/net/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { objectShape, shape } from "./streams/same-objects.js";

// Issue 42: the net below the Bedrock wrapper. A model request of a claimed Bedrock client that no
// span owns is one llm span from the request body and the reply. Zero-code claims the SDK whole and
// puts the net under every client on its first send, wrapping those no framework made; a client a
// framework (LangChain, the Agents SDK, LlamaIndex) made is left to that framework's span, and when
// the app uses it itself the net records it. That is what `claimSdk` + `netBedrock` set up here,
// on the real @aws-sdk/client-bedrock-runtime against the fake Bedrock.

let dev: DevServer;
let fake: FakeBedrock;
let claimed = false;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeBedrock();
  configureForTest(dev.url, dev.projectKey, { logLevel: "debug" });
  claimSdk("bedrock", () => claimed);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0";
const newClient = () => new BedrockRuntimeClient({ endpoint: fake.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 });
const messages = [{ role: "user" as const, content: [{ text: "When do orders ship?" }] }];
const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, system: "Be brief", messages: [{ role: "user", content: "When do orders ship?" }] });
const question = [{ role: "user", content: "When do orders ship?" }];

/** Runs `fn` in a root span; the llm spans stored for its trace and the requests the fake served meanwhile. */
async function llmSpans(fn: () => Promise<unknown>): Promise<{ llm: StoredSpan[]; served: number }> {
  let uuid = "";
  const before = fake.requests.length;
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  const served = fake.requests.length - before;
  expect((await flush()).ok).toBe(true);
  return { llm: dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm"), served };
}

const byNet = (span: StoredSpan | undefined) => (span?.metadata as Record<string, unknown> | undefined)?.["evaltrace.recordedBy"];

/** The four model commands, each read to its end. */
async function fourCommands(c: BedrockRuntimeClient): Promise<string[]> {
  const texts: string[] = [];
  const r = await c.send(new ConverseCommand({ modelId: CLAUDE, system: [{ text: "Be brief" }], messages }));
  texts.push(r.output!.message!.content![0]!.text!);
  const s = await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }));
  let streamed = "";
  for await (const e of s.stream!) streamed += e.contentBlockDelta?.delta?.text ?? "";
  texts.push(streamed);
  const i = await c.send(new InvokeModelCommand({ modelId: CLAUDE, body }));
  texts.push((JSON.parse(new TextDecoder().decode(i.body)) as { content: { text: string }[] }).content[0]!.text);
  const w = await c.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body }));
  let chunks = "";
  for await (const e of w.body!) {
    const event = JSON.parse(new TextDecoder().decode(e.chunk!.bytes)) as { delta?: { text?: string } };
    chunks += event.delta?.text ?? "";
  }
  texts.push(chunks);
  return texts;
}

describe("the net records Bedrock model requests no wrapper span owns", () => {
  it("a claimed client no wrapper instruments: Converse, ConverseStream, InvokeModel, InvokeModelWithResponseStream are one net llm span each, as many as the requests served (input, output, model, tokens)", async () => {
    claimed = true;
    try {
      const c = newClient();
      netBedrock(c);
      const netBefore = stats().netSpans;
      let texts: string[] = [];
      const { llm, served } = await llmSpans(async () => {
        texts = await fourCommands(c);
      });
      expect(texts).toEqual(["Orders ship in 2 days.", "Orders ship in 2 days.", "Orders ship in 2 days.", "Orders ship in 2 days."]);
      expect(served).toBe(4);
      expect(llm).toHaveLength(4);
      expect(stats().netSpans).toBe(netBefore + 4);
      expect(llm.map(byNet)).toEqual(["net", "net", "net", "net"]);
      expect(llm.map((s) => s.name)).toEqual(["bedrock /converse", "bedrock /converse-stream", "bedrock /invoke", "bedrock /invoke-with-response-stream"]);
      for (const s of llm) {
        expect(s).toMatchObject({ status: "SUCCESS", provider: "Bedrock", integration: "Bedrock", model: CLAUDE, output: "Orders ship in 2 days.", outputTokenCount: expect.any(Number), inputTokenCount: expect.any(Number) });
        expect(s.input).toEqual(expect.arrayContaining(question));
      }
      expect(llm[0]!.input).toEqual([{ role: "system", content: "Be brief" }, ...question]);
      expect(llm[2]!.input).toEqual([{ role: "system", content: "Be brief" }, ...question]);
    } finally {
      claimed = false;
    }
  });

  it("a stream the app leaves (break) ends its net span errored, with the text read so far", async () => {
    claimed = true;
    try {
      const c = newClient();
      netBedrock(c);
      const { llm } = await llmSpans(async () => {
        const s = await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }));
        for await (const e of s.stream!) if (e.contentBlockDelta) break;
      });
      expect(llm).toHaveLength(1);
      expect(llm[0]).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/stopped reading/), output: expect.any(String) });
      expect(byNet(llm[0])).toBe("net");
    } finally {
      claimed = false;
    }
  });

  it("a wrapped client: each of the four commands is still exactly one llm span, the wrapper's, not the net's", async () => {
    const c = wrapBedrock(newClient());
    const { llm, served } = await llmSpans(() => fourCommands(c));
    expect(served).toBe(4);
    expect(llm).toHaveLength(4);
    expect(llm.map(byNet)).toEqual([undefined, undefined, undefined, undefined]);
    expect(llm.map((s) => s.name)).toEqual(["bedrock.converse", "bedrock.converse_stream", "bedrock.invoke_model", "bedrock.invoke_model_with_response_stream"]);
  });

  it("a client nobody wrapped nor claimed is left alone by the net", async () => {
    const c = newClient();
    netBedrock(c);
    const { llm, served } = await llmSpans(() => c.send(new ConverseCommand({ modelId: CLAUDE, messages })));
    expect(served).toBe(1);
    expect(llm).toHaveLength(0);
  });

  it("the net changes neither the client (own keys, descriptors, util.inspect) nor what it returns", async () => {
    claimed = true;
    try {
      const raw = newClient();
      const netted = newClient();
      netBedrock(netted);
      const outputs: Record<string, ReturnType<typeof shape>>[] = [];
      for (const c of [raw, netted]) {
        const seen: Record<string, ReturnType<typeof shape>> = {};
        await llmSpans(async () => {
          seen.converse = shape(await c.send(new ConverseCommand({ modelId: CLAUDE, messages })));
          const s = await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }));
          seen.stream = shape(s);
          for await (const _ of s.stream!);
          seen.read = shape(s.stream);
        });
        outputs.push(seen);
      }
      expect(outputs[1]).toEqual(outputs[0]);
      expect(objectShape(netted)).toEqual(objectShape(raw));
    } finally {
      claimed = false;
    }
  });
});

describe("a Bedrock stream the app never reads does not keep its trace open past deliver()", () => {
  /** Opens a ConverseStream and an InvokeModelWithResponseStream in a root span, reads neither, and calls deliver(). */
  async function unread(c: BedrockRuntimeClient): Promise<StoredSpan[]> {
    let uuid = "";
    const held: unknown[] = [];
    await observe({ type: "agent", name: "agent" }, async () => {
      uuid = currentTraceUuid()!;
      held.push(await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages })));
      held.push(await c.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body })));
    })();
    await deliver(undefined, 1000);
    expect(held).toHaveLength(2);
    return (dev.state.traces[uuid]?.spans.filter((s) => s.type === "llm") ?? []).sort((a, b) => a.startTime.localeCompare(b.startTime));
  }

  it("a wrapped client: both spans sent ERRORED, never read", async () => {
    const llm = await unread(wrapBedrock(newClient()));
    expect(llm).toMatchObject([
      { name: "bedrock.converse_stream", status: "ERRORED", error: expect.stringMatching(/never read/) },
      { name: "bedrock.invoke_model_with_response_stream", status: "ERRORED", error: expect.stringMatching(/never read/) },
    ]);
  });

  it("through the net: both spans sent ERRORED, never read", async () => {
    claimed = true;
    try {
      const c = newClient();
      netBedrock(c);
      const llm = await unread(c);
      expect(llm).toMatchObject([
        { name: "bedrock /converse-stream", status: "ERRORED", error: expect.stringMatching(/never read/) },
        { name: "bedrock /invoke-with-response-stream", status: "ERRORED", error: expect.stringMatching(/never read/) },
      ]);
    } finally {
      claimed = false;
    }
  });
});
