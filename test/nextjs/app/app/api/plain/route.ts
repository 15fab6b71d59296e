// A route that leaves its model call to zero-code (no wrapOpenAI): Next bundles openai into it.
import OpenAI from "openai";

const openai = new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI_URL });

export async function GET() {
  const completion = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "zero-code" }] });
  return Response.json({ text: completion.choices[0]?.message.content ?? "" });
}
