import { describe, expect, it } from "vitest";
import { currentSpan, type LlmSpanUpdate, observe, updateAgentSpan, updateLlmSpan, updateRetrieverSpan, updateToolSpan, withTracingContext } from "../../src/index.js";

// Type-level checks: `tsc -p tsconfig.json --noEmit` fails when a `@ts-expect-error` line
// compiles (a helper that accepts another type's field). Never run: the calls are in a function.
function typeChecks(): void {
  updateLlmSpan({ model: "gpt-4o", inputTokenCount: 1, prompt: { alias: "a", version: 3 }, metadata: { k: 1 } });
  // @ts-expect-error embedder is a retriever field
  updateLlmSpan({ embedder: "e" });
  // @ts-expect-error availableTools is an agent field
  updateLlmSpan({ availableTools: [] });
  updateRetrieverSpan({ embedder: "e", topK: 3, chunkSize: 100 });
  // @ts-expect-error model is an llm field
  updateRetrieverSpan({ model: "m" });
  updateAgentSpan({ availableTools: ["a"], agentHandoffs: [] });
  // @ts-expect-error description is a tool field
  updateAgentSpan({ description: "d" });
  updateToolSpan({ description: "d", output: 1 });
  // @ts-expect-error topK is a retriever field
  updateToolSpan({ topK: 1 });
  // @ts-expect-error a number is not a model
  updateLlmSpan({ model: 4 });
  // @ts-expect-error prompt applies to llm spans only
  updateToolSpan({ prompt: { alias: "a" } });
  // @ts-expect-error prompt is an llm option
  observe({ type: "tool", prompt: { alias: "a" } }, () => {});
  observe({ type: "llm", model: "m", prompt: { alias: "a", label: "production" }, apiKey: "svc_..." }, () => {});
  // @ts-expect-error the handle's update takes span fields only
  currentSpan()?.update({ drop: true });
  const update: LlmSpanUpdate = { costPerInputToken: 0.000001 };
  updateLlmSpan(update);
  const n: number = withTracingContext({ tags: ["t"], metricCollection: "c", metadata: { a: 1 }, prompt: { alias: "p", hash: "abc" } }, () => 1);
  // @ts-expect-error tags are strings
  withTracingContext({ tags: [1] }, () => n);
}

describe("typed helpers, at the type level", () => {
  it("compile only with their own type's fields (checked by tsc)", () => {
    expect(typeof typeChecks).toBe("function");
  });
});
