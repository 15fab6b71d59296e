import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { shutdown, stats } from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { wrapBedrock } from "../../src/integrations/bedrock/index.js";
import { wrapClaudeAgentSdk, wrapQuery } from "../../src/integrations/claude-agent-sdk/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { instrumentMcpClient } from "../../src/integrations/mcp/client.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

afterEach(async () => {
  await shutdown(0);
});

const openai = () => new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9", maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: "sk-ant-test", baseURL: "http://127.0.0.1:9", maxRetries: 0 });

/** Each wrapper, given a real client of another SDK (or nothing usable), and what the log must name. */
const cases: { wrapper: string; wrap: () => { given: unknown; got: unknown }; missing: string }[] = [
  { wrapper: "wrapOpenAI", missing: "the client has no chat.completions.create, responses.create nor embeddings.create", wrap: () => ((c) => ({ given: c, got: wrapOpenAI(c) }))(anthropic()) },
  { wrapper: "wrapAnthropic", missing: "the client has no messages", wrap: () => ((c) => ({ given: c, got: wrapAnthropic(c) }))(openai()) },
  { wrapper: "wrapGoogleGenAI", missing: "the client has no models.generateContent nor models.generateContentStream", wrap: () => ((c) => ({ given: c, got: wrapGoogleGenAI(c) }))(openai()) },
  { wrapper: "wrapBedrock", missing: "the client has no send", wrap: () => ((c) => ({ given: c, got: wrapBedrock(c) }))(new GoogleGenAI({ apiKey: "test" })) },
  { wrapper: "instrumentMcpClient", missing: "the client has no callTool", wrap: () => ((c) => ({ given: c, got: instrumentMcpClient(c as never) }))(new BedrockRuntimeClient({ region: "us-east-1" })) },
  { wrapper: "wrapClaudeAgentSdk", missing: "the module has no query function", wrap: () => ((m) => ({ given: m, got: wrapClaudeAgentSdk(m as never) }))({ version: "1" }) },
  { wrapper: "wrapQuery", missing: "it takes the Claude Agent SDK's query function, got undefined", wrap: () => ({ given: undefined, got: wrapQuery(undefined as never) }) },
];

describe("a wrap* given a client of an unexpected shape: the client back unchanged, counted, logged naming what was missing", () => {
  for (const c of cases) {
    it(`${c.wrapper}: returns the very object it got, with the same own properties, never throws; stats().internalErrors +1 per call; one warning for two calls`, () => {
      const logger = configureForTest("http://127.0.0.1:9", "key-1234");
      const before = stats().internalErrors;
      const first = c.wrap();
      const keys = first.given && typeof first.given === "object" ? Reflect.ownKeys(first.given) : [];
      expect(first.got).toBe(first.given);
      if (first.given && typeof first.given === "object") {
        expect(Reflect.ownKeys(first.given)).toEqual(keys);
        for (const key of keys) expect((first.got as Record<PropertyKey, unknown>)[key]).toBe((first.given as Record<PropertyKey, unknown>)[key]);
      }
      const second = c.wrap();
      expect(second.got).toBe(second.given);
      expect(stats().internalErrors - before).toBe(2);
      const warnings = logger.lines.filter((l) => l.startsWith(`warn: ${c.wrapper} failed and was skipped`));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`${c.missing}`);
      expect(warnings[0]).toContain("it is returned unchanged and not traced");
    });
  }

  it("a client of the expected shape is neither counted nor logged", () => {
    const logger = configureForTest("http://127.0.0.1:9", "key-1234");
    const before = stats().internalErrors;
    wrapOpenAI(openai());
    wrapAnthropic(anthropic());
    wrapGoogleGenAI(new GoogleGenAI({ apiKey: "test" }));
    wrapBedrock(new BedrockRuntimeClient({ region: "us-east-1" }));
    expect(stats().internalErrors).toBe(before);
    expect(logger.lines.filter((l) => l.startsWith("warn:"))).toEqual([]);
  });
});

