import { describe, expect, it } from "vitest";
import { contentFromString, readConversation, readIndexedMessages } from "../../src/semconv/messages.js";
import type { JsonValue } from "../../src/spans/json-value.js";

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

// Issue 31: the id that links an assistant's tool call to its tool result was dropped.
describe("tool-call links", () => {
  const call = { id: "c1", name: "lookup", arguments: { id: 1 } };
  it.each([
    [
      "OpenAI Chat: tool_calls[].id, tool_call_id",
      [
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"id":1}' } }] },
        { role: "tool", tool_call_id: "c1", content: "found" },
      ],
    ],
    [
      "Anthropic: tool_use.id, tool_result.tool_use_id",
      [
        { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "lookup", input: { id: 1 } }] },
        { role: "tool", content: [{ type: "tool_result", tool_use_id: "c1", content: "found" }] },
      ],
    ],
    [
      "GenAI: tool_call.id, tool_call_response.id",
      [
        { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "lookup", arguments: { id: 1 } }] },
        { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "found" }] },
      ],
    ],
    [
      "AI SDK: tool-call.toolCallId, tool-result.toolCallId",
      [
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "lookup", input: { id: 1 } }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "lookup", output: "found" }] },
      ],
    ],
    [
      "OpenAI Responses items: function_call.call_id (not its item id), function_call_output.call_id",
      [
        { type: "function_call", id: "fc_1", call_id: "c1", name: "lookup", arguments: '{"id":1}' },
        { type: "function_call_output", call_id: "c1", output: "found" },
      ],
    ],
    [
      "Agents SDK items: function_call.callId, function_call_result.callId with a text part as output",
      [
        { type: "function_call", id: "fc_1", callId: "c1", name: "lookup", arguments: '{"id":1}' },
        { type: "function_call_result", callId: "c1", name: "lookup", output: { type: "text", text: "found" } },
      ],
    ],
  ])("%s: the call keeps its id in tool_calls, the result its tool_call_id", (_convention, messages) => {
    expect(readConversation(messages as JsonValue)!.messages).toEqual([
      { role: "assistant", content: 'lookup({"id":1})', tool_calls: [call] },
      { role: "tool", content: "found", tool_call_id: "c1" },
    ]);
  });

  it("consecutive Responses calls are one assistant message, after the turn's text", () => {
    const read = readConversation([
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking." }] },
      { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
      { type: "function_call", call_id: "c2", name: "b", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "A" },
    ])!;
    expect(read.messages).toEqual([
      { role: "assistant", content: "Looking.\na({})\nb({})", tool_calls: [{ id: "c1", name: "a", arguments: {} }, { id: "c2", name: "b", arguments: {} }] },
      { role: "tool", content: "A", tool_call_id: "c1" },
    ]);
    expect(read.toolCalls.map((c) => c.name)).toEqual(["a", "b"]);
  });

  it("readable messages read again stay as they are: call lines not doubled, ids kept", () => {
    const readableOnce = readConversation([
      { role: "assistant", content: "Sure.", tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"id":1}' } }] },
      { role: "tool", tool_call_id: "c1", content: "found" },
    ])!.messages;
    expect(readableOnce[0]!.content).toBe('Sure.\nlookup({"id":1})');
    expect(readConversation(readableOnce as unknown as JsonValue)!.messages).toEqual(readableOnce);
  });

  it("OpenInference's flattened messages keep tool_call.id and message.tool_call_id", () => {
    const read = readIndexedMessages([
      { "message.role": "assistant", "message.tool_calls.0.tool_call.id": "c1", "message.tool_calls.0.tool_call.function.name": "lookup", "message.tool_calls.0.tool_call.function.arguments": '{"id":1}' },
      { "message.role": "tool", "message.content": "found", "message.tool_call_id": "c1" },
    ])!;
    expect(read.messages).toEqual([
      { role: "assistant", content: 'lookup({"id":1})', tool_calls: [call] },
      { role: "tool", content: "found", tool_call_id: "c1" },
    ]);
  });

  it("a message answering several calls at once (Anthropic) has no one tool_call_id", () => {
    const [m] = readConversation([
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "A" }, { type: "tool_result", tool_use_id: "c2", content: "B" }] },
    ])!.messages;
    expect(m).toEqual({ role: "user", content: "AB" });
  });
});
