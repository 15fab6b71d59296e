// One traced agent over a wrapped OpenAI client, shared by the node and the edge route.
import { observe } from "evaltrace";
import { wrapOpenAI } from "evaltrace/openai";
import OpenAI from "openai";

const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI_URL }));

export const answer = observe({ type: "agent", name: "next-agent" }, async (question: string, route: string) => {
  const completion = await openai.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: `route ${route}` },
      { role: "user", content: question },
    ],
  });
  return completion.choices[0]?.message.content ?? "";
});
