// An app with no evaltrace import: run it under `node --import evaltrace/auto` (see run.mjs).
// Each model call below is traced, configured by EVALTRACE_API_KEY and EVALTRACE_BASE_URL only.
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";

const openai = new OpenAI({ apiKey: "sk-offline", baseURL: process.env.FAKE_OPENAI });
const anthropic = new Anthropic({ apiKey: "sk-ant-offline", baseURL: process.env.FAKE_ANTHROPIC });
const google = new GoogleGenAI({ apiKey: "offline", httpOptions: { baseUrl: process.env.FAKE_GOOGLE } });

const a = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When do orders ship?" }] });
const b = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "When do orders ship?" }] });
const c = await google.models.generateContent({ model: "gemini-2.5-flash", contents: "When do orders ship?" });
console.log(a.choices[0].message.content, "|", b.content[0].text, "|", c.candidates[0].content.parts[0].text);
