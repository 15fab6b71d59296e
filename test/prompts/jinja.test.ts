import { describe, expect, it } from "vitest";
import { PromptInterpolationError } from "../../src/index.js";
import { interpolateText } from "../../src/prompts/interpolate.js";

const r = (s: string, v: Record<string, unknown> = {}) => interpolateText("JINJA", s, v);

function thrown(fn: () => unknown): PromptInterpolationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PromptInterpolationError);
    return err as PromptInterpolationError;
  }
  throw new Error("expected a throw");
}

describe("JINJA through @huggingface/jinja", () => {
  it("renders variables, if/else, for loops with loop.index, and filters", () => {
    expect(r("Hello {{ name }}", { name: "World" })).toBe("Hello World");
    expect(r("{% if show %}Hello {{ name }}{% endif %}", { show: false, name: "Alice" })).toBe("");
    expect(r("{% for item in items %}{{ loop.index }}.{{ item }} {% endfor %}", { items: ["a", "b", "c"] })).toBe("1.a 2.b 3.c ");
    expect(r("{{ name|upper }} {{ words|join(', ') }} {{ items|length }} {{ ' x '|trim }}", { name: "alice", words: ["a", "b"], items: [1, 2] })).toBe("ALICE a, b 2 x");
  });
  it("reads nested objects and lists, by attribute and by key", () => {
    expect(r("{{ user.name }} ({{ user['role'] }}) first: {{ user.tags[0] }}", { user: { name: "Ada", role: "admin", tags: ["x", "y"] } })).toBe("Ada (admin) first: x");
    expect(r("{% for u in users %}{{ u.name }}{% if not loop.last %}, {% endif %}{% endfor %}", { users: [{ name: "A" }, { name: "B" }] })).toBe("A, B");
  });
  it("has set, macros, range and the true/false/none globals", () => {
    expect(r("{% set n = 2 %}{{ n * 3 }} {% for i in range(3) %}{{ i }}{% endfor %} {{ true }} {{ none is none }}")).toBe("6 012 true true");
    expect(r("{% macro tag(x) %}<{{ x }}>{% endmacro %}{{ tag('a') }}{{ tag('b') }}")).toBe("<a><b>");
  });
  it("leaves JSON in the text alone", () => {
    expect(r('{{ name }} data: {"key": "value"}', { name: "User" })).toBe('User data: {"key": "value"}');
  });
  it("a missing variable is an error naming it, where Jinja's default Undefined would print nothing", () => {
    const err = thrown(() => r("Hello {{ name }}!"));
    expect(err.variables).toEqual(["name"]);
    expect(err.message).toContain('"name"');
  });
  it("names every missing variable it meets, in a condition and a loop too", () => {
    expect(thrown(() => r("{{ a }} {% if flag %}y{% endif %} {{ b }}")).variables).toEqual(["a", "flag", "b"]);
    // Iterating a missing list stops rendering: the error names what was met until then.
    expect(thrown(() => r("{{ a }} {% for x in xs %}{{ x }}{% endfor %} {{ b }}")).variables).toEqual(["a", "xs"]);
  });
  it("a missing attribute or key of a given object is an error naming its path (StrictUndefined)", () => {
    expect(thrown(() => r("{{ user.name }} {{ user.age }}", { user: { name: "A" } })).variables).toEqual(["user.age"]);
    expect(thrown(() => r("{{ user['age'] }}", { user: {} })).variables).toEqual(['user["age"]']);
    expect(thrown(() => r("{{ user.address.city }}")).variables).toEqual(["user"]);
  });
  it("tests and the default filter may look at undefined names, as in Jinja", () => {
    expect(r("{% if x is defined %}yes{% else %}no{% endif %} {{ y | default('d') }} {{ user.nick | default('anon') }}", { user: {} })).toBe("no d anon");
  });
  it("names set by the template, loop variables and macro arguments are not missing", () => {
    expect(r("{% set greeting = 'hi' %}{{ greeting }} {% for k in ['a'] %}{{ k }}{% endfor %}")).toBe("hi a");
  });
  it("a variable given as undefined counts as missing", () => {
    expect(thrown(() => r("{{ a }}", { a: undefined })).variables).toEqual(["a"]);
  });
  it("an invalid template is a PromptInterpolationError saying so, with no variables", () => {
    const err = thrown(() => r("{{ x "));
    expect(err.message).toMatch(/^invalid JINJA template/);
    expect(err.variables).toEqual([]);
    expect(thrown(() => r("{% for x in 5 %}{% endfor %}")).message).toMatch(/^the JINJA template failed/);
  });
  it("a value the engine cannot take (a bigint) is a clear error", () => {
    expect(thrown(() => r("{{ n }}", { n: 10n })).message).toContain("cannot be passed to the JINJA template");
  });
  it("renders the same template many times from its parsed copy with the values of each call", () => {
    for (let i = 0; i < 300; i++) expect(r("{{ i }}-{{ i * 2 }}", { i })).toBe(`${i}-${i * 2}`);
  });
});
