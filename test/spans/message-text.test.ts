import { describe, expect, it } from "vitest";
import { messageText } from "../../src/spans/message-text.js";

describe("messageText", () => {
  it("reads strings, parts and objects as before", () => {
    expect(messageText("hi")).toBe("hi");
    expect(messageText([{ type: "text", text: "a" }, { type: "image", url: "u" }, "s", undefined])).toBe('a{"type":"image","url":"u"}"s"');
    expect(messageText({ a: 1 })).toBe('{"a":1}');
    expect(messageText(null)).toBe("");
  });

  it("never throws on content JSON cannot encode (it runs on the app's call path)", () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(messageText(circular)).toBe('{"a":1,"self":"<circular>"}');
    expect(messageText([circular, 10n, { text: 5n }])).toBe('{"a":1,"self":"<circular>"}105');
    expect(messageText({ n: 10n })).toBe('{"n":"10"}');
  });
});
