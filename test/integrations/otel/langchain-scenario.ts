import { expect } from "vitest";
import type { StoredTrace } from "../../../src/devserver/store/store.js";
import { observe } from "../../../src/index.js";
import { llmSpans, requireCjs } from "./bridge.js";

/**
 * What an app does with LangChain.js inside an observe() agent: a prompt | chat model | parser
 * chain with a system prompt, a tool run, and a model call the service refuses.
 */
export async function langChainScenario(fakeUrl: string, name: string): Promise<void> {
  const { ChatOpenAI } = requireCjs("@langchain/openai");
  const { ChatPromptTemplate } = requireCjs("@langchain/core/prompts");
  const { StringOutputParser } = requireCjs("@langchain/core/output_parsers");
  const { tool } = requireCjs("@langchain/core/tools");
  const { z } = requireCjs("zod");
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: fakeUrl }, maxRetries: 0 });
  const broken = new ChatOpenAI({ model: "error-400", apiKey: "sk-test", configuration: { baseURL: fakeUrl }, maxRetries: 0 });
  const chain = ChatPromptTemplate.fromMessages([
    ["system", "You are a support bot."],
    ["human", "{question}"],
  ])
    .pipe(model)
    .pipe(new StringOutputParser());
  const lookup = tool(async ({ orderId }: { orderId: string }) => `order ${orderId} shipped`, {
    name: "lookup_order",
    description: "Finds an order",
    schema: z.object({ orderId: z.string() }),
  });
  const agent = observe({ type: "agent", name }, async (question: string) => {
    const answer = await chain.invoke({ question });
    await lookup.invoke({ orderId: "A-1001" });
    await broken.invoke("x").catch(() => undefined);
    return answer;
  });
  expect(await agent("When do orders ship?")).toBe("Orders ship in 2 days.");
}

/** The chat model call inside the chain: typed, with plain-text messages and tokens. */
export function expectLangChainLlm(t: StoredTrace): void {
  const [chat, refused] = llmSpans(t);
  expect(chat).toMatchObject({
    model: expect.stringContaining("gpt-4o-mini"),
    input: [
      { role: "system", content: "You are a support bot." },
      { role: "user", content: "When do orders ship?" },
    ],
    output: "Orders ship in 2 days.",
    status: "SUCCESS",
  });
  expect(JSON.stringify(t.spans)).not.toContain('"lc":1');
  expect(refused).toBeDefined();
}

/**
 * A tool-call round trip through a LangChain chat model, in an observe() agent named `name`: the
 * model (tools bound) calls lookup_order (the fake names the call `call_1`), the app answers with
 * a ToolMessage, and the model is asked again with the whole conversation.
 */
export async function langChainToolRoundTrip(fakeUrl: string, name: string): Promise<void> {
  const { ChatOpenAI } = requireCjs("@langchain/openai");
  const { HumanMessage, ToolMessage } = requireCjs("@langchain/core/messages");
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: fakeUrl }, maxRetries: 0 });
  const withTools = model.bindTools([
    { type: "function", function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } } },
  ]);
  const agent = observe({ type: "agent", name }, async () => {
    const messages: unknown[] = [new HumanMessage("Where is order A-1001? use lookup_order")];
    const call = await withTools.invoke(messages);
    const toolCall = call.tool_calls[0];
    messages.push(call, new ToolMessage({ tool_call_id: toolCall.id, content: "order A-1001 shipped" }));
    return (await withTools.invoke(messages)).content;
  });
  expect(await agent()).toBe("Orders ship in 2 days.");
}

/** The second model call of {@link langChainToolRoundTrip}: the assistant's call and the tool's result linked by the call's id. */
export function expectToolCallIdsKept(t: StoredTrace): void {
  const answer = llmSpans(t)[1];
  expect(answer, "the second model call").toBeDefined();
  const input = answer!.input as { role: string; content: string; tool_calls?: unknown; tool_call_id?: unknown }[];
  expect(input.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  expect({ calls: input[1]!.tool_calls, answers: input[2]!.tool_call_id }).toEqual({
    calls: [{ id: "call_1", name: "lookup_order", arguments: { orderId: "A-1001" } }],
    answers: "call_1",
  });
}
