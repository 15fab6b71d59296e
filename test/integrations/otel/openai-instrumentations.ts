import { expect } from "vitest";
import type { StoredTrace } from "../../../src/devserver/store/store.js";
import { llmSpans, outline } from "./bridge.js";

/**
 * What every OpenAI instrumentation must give after `openAiScenario`: five llm spans under the
 * agent, plain-text messages with the system prompt, tokens, the tool call as `toolsCalled` and
 * in the next call's input, and the refused call as ERRORED (or, where the instrumentation never
 * ends that span, closed and marked unfinished).
 */
export function expectOpenAiTree(t: StoredTrace, agent: string, integration: string, llmNames: string[]): void {
  expect(outline(t)).toEqual([`agent ${agent}`, ...llmNames.map((n) => `  llm ${n}`)]);
  const [chat, streamed, toolTurn, answer, refused] = llmSpans(t);
  expect(chat).toMatchObject({
    model: expect.stringContaining("gpt-4o-mini"),
    provider: "OpenAI",
    inputTokenCount: 11,
    outputTokenCount: 4,
    input: [
      { role: "system", content: "You are a support bot." },
      { role: "user", content: "When do orders ship?" },
    ],
    output: "Orders ship in 2 days.",
    integration,
    status: "SUCCESS",
  });
  expect(streamed).toMatchObject({ input: [{ role: "user", content: "and returns?" }], output: "Orders ship in 2 days.", status: "SUCCESS" });
  expect(toolTurn!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
  const answerInput = answer!.input as { role: string; content: string }[];
  expect(answerInput.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  expect(answerInput[1]!.content).toContain("lookup_order");
  expect(answerInput[2]!.content).toBe("order A-1001 shipped");
  // The call's id links the assistant's call to its result (issue 42: lost through each of them).
  expect({ calls: (answerInput[1] as { tool_calls?: unknown }).tool_calls, answers: (answerInput[2] as { tool_call_id?: unknown }).tool_call_id }).toEqual({
    calls: [{ id: "call_1", name: "lookup_order", arguments: { orderId: "A-1001" } }],
    answers: "call_1",
  });
  expect(answer).toMatchObject({ output: "Orders ship in 2 days." });
  if (refused!.status === "ERRORED") expect(String(refused!.error)).toMatch(/400/);
  else expect(refused!.metadata).toMatchObject({ "evaltrace.unfinished": true });
}
