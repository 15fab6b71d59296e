import { describe, expect, it } from "vitest";
import { contentFromString, readConversation } from "../../src/semconv/messages.js";

// Message text as the conventions carry it: only typed parts are read as parts; any other text
// stays as written (found in review: JSON-looking prompts and answers were rewritten).
describe("message content", () => {
  it.each([
    ['{"content":"yes","confidence":0.2}', '{"content":"yes","confidence":0.2}'],
    ['{"type":"tool_call","name":"delete_user"}', "delete_user()"],
    ['["apple","banana"]', '["apple","banana"]'],
    ['"hello"', '"hello"'],
    ['{"status":"shipped","text":"A-1001"}', '{"status":"shipped","text":"A-1001"}'],
    ['[{"type":"text","content":"Hi"},{"type":"text","content":" there"}]', "Hi there"],
    ["plain text", "plain text"],
  ])("%s", (raw, expected) => {
    expect(contentFromString(raw)).toBe(expected);
  });

  it("a conversation that cannot be parsed (too large, cut) is one user message of its text", () => {
    expect(readConversation("[{not json")).toEqual({ messages: [{ role: "user", content: "[{not json" }], toolCalls: [] });
  });

  it("tool calls and results in every convention's shape read as text, calls collected", () => {
    const read = readConversation([
      { role: "assistant", content: [{ type: "tool_use", name: "lookup", input: { id: 1 } }] },
      { role: "user", content: [{ type: "tool_result", content: "found" }] },
      { role: "assistant", parts: [{ type: "tool_call", name: "search", arguments: '{"q":"x"}' }] },
      { role: "assistant", content: [{ type: "tool-call", toolName: "fetch", input: { url: "u" } }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "pay", arguments: '{"amount":2}' } }] },
    ])!;
    expect(read.messages.map((m) => m.content)).toEqual(['lookup({"id":1})', "found", 'search({"q":"x"})', 'fetch({"url":"u"})', 'pay({"amount":2})']);
    expect(read.toolCalls.map((c) => c.name)).toEqual(["lookup", "search", "fetch", "pay"]);
  });
});
