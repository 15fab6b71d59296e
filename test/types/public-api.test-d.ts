// Type tests, run by Vitest's typecheck mode (`npm test`; vitest.config.ts `typecheck`): each
// expectTypeOf is checked by tsc, and a `@ts-expect-error` line that compiles fails the run.
import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { assertType, describe, expectTypeOf, it } from "vitest";
import {
  Client,
  configure,
  currentSpan,
  type EvaltraceOptions,
  type FlushResult,
  flush,
  type LlmSpanUpdate,
  observe,
  type Prompt,
  type SdkStats,
  stats,
  updateAgentSpan,
  updateLlmSpan,
  updateRetrieverSpan,
  updateToolSpan,
  withTracingContext,
} from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { wrapBedrock } from "../../src/integrations/bedrock/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";

describe("configure()", () => {
  it("takes EvaltraceOptions and returns nothing", () => {
    expectTypeOf(configure).parameter(0).toEqualTypeOf<EvaltraceOptions | undefined>();
    expectTypeOf(configure).returns.toBeVoid();
    assertType<EvaltraceOptions>({ apiKey: "k", baseUrl: "http://127.0.0.1:4680", sampleRate: 0.5, environment: "production", otelContext: "separate", batch: { concurrency: 2 } });
  });

  it("refuses a misspelt option, a wrong type, a value outside its set", () => {
    // @ts-expect-error apikey is not an option (apiKey is)
    assertType<EvaltraceOptions>({ apikey: "k" });
    // @ts-expect-error sampleRate is a number
    assertType<EvaltraceOptions>({ sampleRate: "0.5" });
    // @ts-expect-error otelContext is "shared" or "separate"
    assertType<EvaltraceOptions>({ otelContext: "global" });
    // @ts-expect-error batch options are checked too
    assertType<EvaltraceOptions>({ batch: { maxSpans: 5 } });
  });
});

describe("observe()", () => {
  it("returns the function's own type, with and without options", () => {
    const fn = async (question: string, n: number) => ({ answer: question.repeat(n) });
    expectTypeOf(observe(fn)).toEqualTypeOf(fn);
    expectTypeOf(observe({ name: "answer", type: "llm", model: "m" }, fn)).toEqualTypeOf<(question: string, n: number) => Promise<{ answer: string }>>();
    const sync = (x: number) => x * 2;
    expectTypeOf(observe({ type: "tool" }, sync)).returns.toBeNumber();
  });

  it("refuses another type's option", () => {
    // @ts-expect-error prompt is an llm option
    observe({ type: "tool", prompt: { alias: "a" } }, () => {});
    observe({ type: "llm", model: "m", prompt: { alias: "a", label: "production" } }, () => {});
  });
});

describe("span updates", () => {
  it("each typed helper takes its own type's fields only", () => {
    updateLlmSpan({ model: "gpt-4o", inputTokenCount: 1, prompt: { alias: "a", version: 3 }, metadata: { k: 1 } });
    // @ts-expect-error embedder is a retriever field
    updateLlmSpan({ embedder: "e" });
    // @ts-expect-error availableTools is an agent field
    updateLlmSpan({ availableTools: [] });
    // @ts-expect-error a number is not a model
    updateLlmSpan({ model: 4 });
    updateRetrieverSpan({ embedder: "e", topK: 3, chunkSize: 100 });
    // @ts-expect-error model is an llm field
    updateRetrieverSpan({ model: "m" });
    updateAgentSpan({ availableTools: ["a"], agentHandoffs: [] });
    // @ts-expect-error description is a tool field
    updateAgentSpan({ description: "d" });
    updateToolSpan({ description: "d", output: 1 });
    // @ts-expect-error topK is a retriever field
    updateToolSpan({ topK: 1 });
    // @ts-expect-error prompt applies to llm spans only
    updateToolSpan({ prompt: { alias: "a" } });
    assertType<LlmSpanUpdate>({ costPerInputToken: 0.000001 });
  });

  it("the span handle's update takes span fields only; withTracingContext returns the callback's value", () => {
    // @ts-expect-error the handle's update takes span fields only
    currentSpan()?.update({ drop: true });
    expectTypeOf(withTracingContext({ tags: ["t"], metricCollection: "c" }, () => 1)).toBeNumber();
    // @ts-expect-error tags are strings
    withTracingContext({ tags: [1] }, () => 1);
  });
});

describe("flush() and stats()", () => {
  it("return their result types", () => {
    expectTypeOf(flush).returns.resolves.toEqualTypeOf<FlushResult>();
    expectTypeOf(stats).returns.toEqualTypeOf<SdkStats>();
    expectTypeOf<SdkStats["internalErrors"]>().toBeNumber();
    expectTypeOf<SdkStats["netSpans"]>().toBeNumber();
  });
});

describe("Client", () => {
  it("methods take the spec's bodies and return typed results", () => {
    const client = new Client({ apiKey: "k", maxConnectRetries: 1 });
    expectTypeOf(client.metrics.create).returns.resolves.toEqualTypeOf<{ id: string }>();
    expectTypeOf(client.prompts.pull).returns.resolves.toEqualTypeOf<Prompt>();
    expectTypeOf(client.prompts.pull).parameter(0).toBeString();
    expectTypeOf(client.close).returns.resolves.toBeVoid();
    // @ts-expect-error a metric needs its evaluation params
    void client.metrics.create({ name: "n", criteria: "c", multiTurn: false });
    // @ts-expect-error maxConnectRetries is a number
    new Client({ maxConnectRetries: "2" });
  });
});

describe("wrap*: the client's own type comes back", () => {
  it("OpenAI, Anthropic, Google GenAI, Bedrock", () => {
    expectTypeOf(wrapOpenAI(new OpenAI({ apiKey: "k" }))).toEqualTypeOf<OpenAI>();
    expectTypeOf(wrapAnthropic(new Anthropic({ apiKey: "k" }))).toEqualTypeOf<Anthropic>();
    expectTypeOf(wrapGoogleGenAI(new GoogleGenAI({ apiKey: "k" }))).toEqualTypeOf<GoogleGenAI>();
    expectTypeOf(wrapBedrock(new BedrockRuntimeClient({}))).toEqualTypeOf<BedrockRuntimeClient>();
    // @ts-expect-error a client is an object
    wrapOpenAI("openai");
  });
});
