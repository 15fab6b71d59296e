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
