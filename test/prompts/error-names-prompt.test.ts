import { describe, expect, it } from "vitest";
import { PromptInterpolationError } from "../../src/index.js";
import { makePrompt, type PromptFields } from "../../src/prompts/prompt.js";

// Issue 48: an interpolation error says which prompt failed, not only which variable.

const base = { alias: "greeter", id: "p1", hash: "abc123", version: "00.00.02", label: null, interpolationType: "FSTRING", outputType: null, outputSchema: null, tools: null, modelSettings: null } as unknown as PromptFields;

describe("a prompt's interpolation error names the prompt", () => {
  it("a missing variable of a text prompt: the alias and version first, the variables kept", () => {
    const prompt = makePrompt({ ...base, text: "Hi {name}", messages: null } as PromptFields);
    let caught: unknown;
    try {
      prompt.interpolate({});
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PromptInterpolationError);
    expect((caught as PromptInterpolationError).message).toBe('prompt "greeter" version 00.00.02: missing prompt variable "name": the template uses it but interpolate() was not given it');
    expect((caught as PromptInterpolationError).variables).toEqual(["name"]);
  });

  it("a message prompt pulled by commit: the alias and the commit", () => {
    const prompt = makePrompt({ ...base, version: null, text: null, messages: [{ role: "user", content: "Hi {name}" }] } as PromptFields);
    expect(() => prompt.interpolate({})).toThrow('prompt "greeter" commit abc123: missing prompt variable "name"');
  });
});
