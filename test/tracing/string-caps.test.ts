import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredTrace } from "../../src/devserver/store/store.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { toJsonValue } from "../../src/spans/serialize.js";
import { describeError } from "../../src/util/describe-error.js";
import {
  MAX_ERROR_CHARS,
  MAX_ID_CHARS,
  MAX_LABEL_CHARS,
  MAX_METADATA_KEY_CHARS,
  MAX_NAME_CHARS,
  MAX_TAG_CHARS,
  truncateString,
} from "../../src/util/string-limits.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());
afterEach(async () => {
  await shutdown();
});

const MARKER = /\.\.\.\[truncated \d+ chars\]$/;
/** A string cut at `cap`: the kept part plus the marker. */
const expectCut = (value: unknown, cap: number) => {
  expect(typeof value).toBe("string");
  expect(value as string).toMatch(MARKER);
  expect((value as string).replace(MARKER, "").length).toBeLessThanOrEqual(cap);
};

describe("truncateString", () => {
  it("keeps short strings, cuts long ones with a marker, never splits a surrogate pair, strips NUL", () => {
    expect(truncateString("short", 10)).toBe("short");
    expect(truncateString("abcdef", 3)).toBe("abc...[truncated 3 chars]");
    expect(truncateString("ab😀cd", 3)).toBe("ab...[truncated 4 chars]");
    expect(truncateString("a\u0000b", 10)).toBe("ab");
    expect(truncateString("a\u0000bcdef", 3)).toBe("ab...[truncated 4 chars]");
  });

  it("bounds describeError whatever was thrown", () => {
    expectCut(describeError(new Error("e".repeat(MAX_ERROR_CHARS * 3))), MAX_ERROR_CHARS);
    expectCut(describeError("s".repeat(MAX_ERROR_CHARS * 3)), MAX_ERROR_CHARS);
    expect(typeof describeError(Object.assign(new Error(), { message: { not: "a string" } }))).toBe("string");
    expect(describeError(Object.defineProperty(new Error(), "message", { get: () => { throw new Error("getter"); } }))).toBe("unknown error");
  });

  it("cuts a huge string inside a captured value before stripping NULs (no whole copy)", () => {
    const huge = `a\u0000${"b".repeat(1_000_000)}`;
    const out = toJsonValue(huge, { maxStringChars: 10, maxTotalChars: 100, maxDepth: 4, maxItems: 10 });
    expect(out).toBe("abbbbbbbb...[truncated 999992 chars]");
  });
});

describe("every string that leaves the process has a cap", () => {
  it("names, ids, tags, metadata keys and short fields of spans and traces", async () => {
    configureForTest(dev.url, dev.projectKey);
    const big = (c: string) => c.repeat(1_000_000);
    let uuid: string | undefined;
    const llm = observe({ type: "llm", name: big("l"), model: big("m"), provider: big("p"), promptAlias: big("a") }, () => {
      updateCurrentSpan({ metadata: { [big("k")]: 1 }, metricCollection: big("c"), promptCommitHash: big("h") });
      return "out";
    });
    const agent = observe({ type: "agent", availableTools: [big("t")], agentHandoffs: [big("h")] }, function agentRoot() {
      uuid = currentTraceUuid();
      updateCurrentTrace({ name: big("n"), threadId: big("t"), userId: big("u"), tags: [big("g")], metadata: { [big("k")]: big("v") } });
      llm();
      throw new Error(big("x"));
    });
    expect(() => agent()).toThrow();
    expect((await flush()).ok).toBe(true);
    const t: StoredTrace = dev.state.traces[uuid!]!;
    expectCut(t.fields.name, MAX_NAME_CHARS);
    expectCut(t.fields.threadId, MAX_ID_CHARS);
    expectCut(t.fields.userId, MAX_ID_CHARS);
    expectCut((t.fields.tags as string[])[0], MAX_TAG_CHARS);
    const traceMetaKey = Object.keys(t.fields.metadata as object)[0];
    expectCut(traceMetaKey, MAX_METADATA_KEY_CHARS);
    const llmSpan = t.spans.find((s) => s.type === "llm")!;
    expectCut(llmSpan.name, MAX_NAME_CHARS);
    for (const field of ["model", "provider", "promptAlias", "promptCommitHash", "metricCollection"]) expectCut(llmSpan[field], MAX_LABEL_CHARS);
    expectCut(Object.keys(llmSpan.metadata as object)[0], MAX_METADATA_KEY_CHARS);
    const agentSpan = t.spans.find((s) => s.type === "agent")!;
    expectCut(agentSpan.error, MAX_ERROR_CHARS);
    expectCut((agentSpan.availableTools as string[])[0], MAX_LABEL_CHARS);
    expectCut((agentSpan.agentHandoffs as string[])[0], MAX_LABEL_CHARS);
    expect(JSON.stringify(t).length).toBeLessThan(1_000_000);
  });

  it("foreign OTel spans: names, errors, model, provider, tool fields and inputs are bounded; bad counts and callbacks do not get the trace rejected", async () => {
    configureForTest(dev.url, dev.projectKey);
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new EvaltraceSpanProcessor({
          metricCollection: "answers",
          llmTestCase: () => ({ input: 1, actualOutput: { not: "text" }, bogus: true }) as never,
        }),
      ],
    });
    const tracer = provider.getTracer("app");
    const big = (c: string) => c.repeat(3_000_000);
    let traceId = "";
    tracer.startActiveSpan(
      big("r"),
      {
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": big("m"),
          "gen_ai.system": big("p"),
          "gen_ai.usage.input_tokens": Number.NaN,
          "gen_ai.usage.output_tokens": -4,
          "gen_ai.input.messages": JSON.stringify([{ role: "user", content: big("q") }]),
          "gen_ai.completion.0.content": big("o"),
        },
      },
      (llm) => {
        traceId = llm.spanContext().traceId;
        tracer.startActiveSpan(
          "tool",
          { attributes: { "gen_ai.tool.name": big("t"), "gen_ai.tool.description": big("d"), "gen_ai.tool.call.arguments": JSON.stringify({ q: big("a") }) } },
          (tool) => {
            tool.setStatus({ code: SpanStatusCode.ERROR, message: big("e") });
            tool.end();
          },
        );
        llm.end();
      },
    );
    expect((await flush()).ok).toBe(true);
    const t = Object.values(dev.state.traces).find((x) => x.uuid.replaceAll("-", "") === traceId)!;
    expect(t).toBeDefined();
    const llmSpan = t.spans.find((s) => s.type === "llm")!;
    expectCut(llmSpan.name, MAX_NAME_CHARS);
    expectCut(llmSpan.model, MAX_LABEL_CHARS);
    expectCut(llmSpan.provider, MAX_LABEL_CHARS);
    expect(llmSpan.inputTokenCount).toBeUndefined();
    expect(llmSpan.outputTokenCount).toBeUndefined();
    expect(llmSpan.llmTestCase).toEqual({ input: "1", actualOutput: '{"not":"text"}' });
    const toolSpan = t.spans.find((s) => s.type === "tool")!;
    expectCut(toolSpan.name, MAX_NAME_CHARS);
    expectCut(toolSpan.error, MAX_ERROR_CHARS);
    expect(JSON.stringify(t).length).toBeLessThan(2_000_000);
  });
});
