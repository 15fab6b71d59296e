// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} is the DOLLAR_BRACKETS syntax under test
import { describe, expect, it } from "vitest";
import { PromptInterpolationError } from "../../src/index.js";
import { interpolateText } from "../../src/prompts/interpolate.js";

/** The error `fn` throws. */
function thrown(fn: () => unknown): PromptInterpolationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PromptInterpolationError);
    return err as PromptInterpolationError;
  }
  throw new Error("expected a throw");
}

// Cases from the vendor's own tests of its renderer (deepeval tests/test_core/test_prompts/test_interpolation.py).
describe("MUSTACHE: {{name}}", () => {
  const r = (s: string, v: Record<string, unknown> = {}) => interpolateText("MUSTACHE", s, v);
  it("replaces variables, repeated and adjacent", () => {
    expect(r("{{greeting}} {{name}}, you have {{count}} messages", { greeting: "Hello", name: "Alice", count: 5 })).toBe("Hello Alice, you have 5 messages");
    expect(r("{{first}}{{second}} {{first}}", { first: "a", second: "b" })).toBe("ab a");
    expect(r("Private: {{_private}} {{item123}}", { _private: "s", item123: "v" })).toBe("Private: s v");
  });
  it("leaves JSON, single braces, spaces, dots, dashes and leading digits as text", () => {
    expect(r('{{name}} likes {"key": "value", "count": 42}', { name: "Alice" })).toBe('Alice likes {"key": "value", "count": 42}');
    expect(r("{{name}} {alone}", { name: "Alice" })).toBe("Alice {alone}");
    expect(r("{{ name }} {{user.name}} {{user-name}} {{123invalid}}", { name: "Alice" })).toBe("{{ name }} {{user.name}} {{user-name}} {{123invalid}}");
  });
  it("renders triple braces as the inner placeholder inside single braces", () => {
    expect(r("{{{name}}}", { name: "Alice" })).toBe("{Alice}");
  });
  it("is case-sensitive and ignores extra variables", () => {
    expect(r("{{Name}} and {{name}}", { Name: "Alice", name: "Bob", extra: 1 })).toBe("Alice and Bob");
  });
});

describe("MUSTACHE_WITH_SPACE: {{ name }}", () => {
  const r = (s: string, v: Record<string, unknown> = {}) => interpolateText("MUSTACHE_WITH_SPACE", s, v);
  it("replaces exactly one space each side, nothing else", () => {
    expect(r("{{ greeting }} {{ name }}", { greeting: "Hello", name: "Alice" })).toBe("Hello Alice");
    expect(r("{{name}} {{  name  }}", { name: "Alice" })).toBe("{{name}} {{  name  }}");
    expect(r('{{ name }} likes {"key": "value"}', { name: "Alice" })).toBe('Alice likes {"key": "value"}');
  });
});

describe("FSTRING: {name}", () => {
  const r = (s: string, v: Record<string, unknown> = {}) => interpolateText("FSTRING", s, v);
  it("replaces identifiers and leaves JSON, empty braces, attribute and index syntax alone", () => {
    expect(r('{name} likes {"key": "value", "count": 42}', { name: "Alice" })).toBe('Alice likes {"key": "value", "count": 42}');
    expect(r("{name} and {}", { name: "Alice" })).toBe("Alice and {}");
    expect(r("{user.name} {items[0]} {name}", { name: "Alice" })).toBe("{user.name} {items[0]} Alice");
  });
  it("has no escape: doubled braces stay doubled around text, and {{name}} renders {value} (as the vendor's renderer does)", () => {
    expect(r('{user} data: {{"items": [{{"id": 1}}]}}', { user: "Admin" })).toBe('Admin data: {{"items": [{{"id": 1}}]}}');
    expect(r("{{name}}", { name: "Alice" })).toBe("{Alice}");
  });
  it("formats numbers, booleans, null, arrays and objects", () => {
    expect(r("{a} {b} {c} {d} {e} {f}", { a: 42, b: 19.99, c: true, d: null, e: [1, 2, 3], f: { key: "value" } })).toBe('42 19.99 true null [1,2,3] {"key":"value"}');
  });
  it("keeps unicode and multi-line text", () => {
    expect(r("{emoji} {chinese}\nLine 2: {v}", { emoji: "🎉", chinese: "你好", v: "B" })).toBe("🎉 你好\nLine 2: B");
  });
});

describe("DOLLAR_BRACKETS: ${name}", () => {
  const r = (s: string, v: Record<string, unknown> = {}) => interpolateText("DOLLAR_BRACKETS", s, v);
  it("replaces ${name} and leaves plain braces and dollars alone", () => {
    expect(r("The path is ${HOME}/documents", { HOME: "/home/user" })).toBe("The path is /home/user/documents");
    expect(r("${name} costs $50 and {other}", { name: "Item" })).toBe("Item costs $50 and {other}");
  });
});

describe("missing variables (plain types)", () => {
  it.each([
    ["MUSTACHE", "Hello {{name}} {{greeting}}"],
    ["MUSTACHE_WITH_SPACE", "Hello {{ name }} {{ greeting }}"],
    ["FSTRING", "Hello {name} {greeting}"],
    ["DOLLAR_BRACKETS", "Hello ${name} ${greeting}"],
  ] as const)("%s: throws PromptInterpolationError naming every missing variable, in order", (type, template) => {
    const err = thrown(() => interpolateText(type, template, { greeting: undefined }));
    expect(err.variables).toEqual(["name", "greeting"]);
    expect(err.message).toContain('"name", "greeting"');
  });
  it("a variable given as an empty string or 0 is given", () => {
    expect(interpolateText("FSTRING", "[{a}][{b}]", { a: "", b: 0 })).toBe("[][0]");
  });
  it("an inherited property (toString) is not a given variable", () => {
    expect(thrown(() => interpolateText("FSTRING", "{toString}", {})).variables).toEqual(["toString"]);
  });
  it("empty templates render empty for every type", () => {
    for (const type of ["MUSTACHE", "MUSTACHE_WITH_SPACE", "FSTRING", "DOLLAR_BRACKETS", "JINJA"] as const) expect(interpolateText(type, "", {})).toBe("");
  });
  it("an unknown type is a TypeError naming the five", () => {
    expect(() => interpolateText("PERCENT" as never, "x", {})).toThrow(/MUSTACHE, MUSTACHE_WITH_SPACE, FSTRING, DOLLAR_BRACKETS, JINJA/);
  });
});
