// Start-up bench subject: an ESM app that imports the model SDKs and frameworks zero-code
// instruments (the app): openai, @anthropic-ai/sdk, @langchain/openai,
// @langchain/langgraph, ai and the MCP client, and makes a client of each SDK.
import Anthropic from "@anthropic-ai/sdk";
import { ChatOpenAI } from "@langchain/openai";
import { StateGraph } from "@langchain/langgraph";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { generateText } from "ai";
import OpenAI from "openai";

new OpenAI({ apiKey: "sk-bench" });
new Anthropic({ apiKey: "sk-bench" });
new ChatOpenAI({ apiKey: "sk-bench", model: "gpt-4o-mini" });
new Client({ name: "bench", version: "1.0.0" });
if (typeof StateGraph !== "function" || typeof generateText !== "function") throw new Error("app: an import is missing");
const top = performance.timeOrigin + performance.now();
const { userCPUTime, systemCPUTime } = process.resourceUsage();
process.on("exit", () => process.stdout.write(`${JSON.stringify({ top, cpu: (userCPUTime + systemCPUTime) / 1000, maxRSS: process.resourceUsage().maxRSS })}\n`));
