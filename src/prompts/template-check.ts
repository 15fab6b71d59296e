import type { InterpolationType } from "./interpolate.js";
import { jinjaSyntaxError } from "./jinja.js";

/**
 * What `push-prompt` checks of a template before it is sent: a JINJA template that does not
 * parse (an error), and placeholders written for another interpolation type than the prompt's
 * (a warning: `{{name}}` under FSTRING renders `{value}`).
 */

/** The placeholders each plain type recognises, to tell which one a text was written for. */
const WRITTEN_AS: readonly (readonly [Exclude<InterpolationType, "JINJA" | "FSTRING">, RegExp])[] = [
  ["MUSTACHE", /\{\{[A-Za-z_][A-Za-z0-9_]*\}\}/],
  ["MUSTACHE_WITH_SPACE", /\{\{ [A-Za-z_][A-Za-z0-9_]* \}\}/],
  ["DOLLAR_BRACKETS", /\$\{[A-Za-z_][A-Za-z0-9_]*\}/],
];
const FSTRING_ONLY = /(^|[^{$])\{[A-Za-z_][A-Za-z0-9_]*\}(?!\})/;

/** The interpolation type a text's placeholders were written for, when it is plain to see. */
export function writtenFor(text: string): InterpolationType | undefined {
  for (const [type, pattern] of WRITTEN_AS) if (pattern.test(text)) return type;
  return FSTRING_ONLY.test(text) ? "FSTRING" : undefined;
}

/** The templates of a push body: its text, or each message's content. */
export function templatesOf(body: { text?: unknown; messages?: unknown }): string[] {
  if (typeof body.text === "string") return [body.text];
  if (!Array.isArray(body.messages)) return [];
  return body.messages.flatMap((m) => (m !== null && typeof m === "object" && typeof (m as { content?: unknown }).content === "string" ? [(m as { content: string }).content] : []));
}

/** The warning for placeholders written for another type than `type`, or undefined. */
export function placeholderMismatch(type: InterpolationType, templates: readonly string[]): string | undefined {
  if (type === "JINJA") return undefined;
  for (const text of templates) {
    const meant = writtenFor(text);
    if (meant === undefined || meant === type) continue;
    // `{{ x }}` reads as JINJA too: name both.
    const alternatives = meant === "MUSTACHE_WITH_SPACE" ? "MUSTACHE_WITH_SPACE (or JINJA)" : meant;
    return `the template's placeholders look like ${alternatives}, but the prompt's interpolationType is ${type}: they would not render as variables; pass --interpolation-type ${meant} (or set "interpolationType" in the file)`;
  }
  return undefined;
}

/** The first JINJA template that does not parse, as an error message, or undefined. */
export function jinjaProblem(templates: readonly string[]): string | undefined {
  for (const [i, text] of templates.entries()) {
    const problem = jinjaSyntaxError(text);
    if (problem !== undefined) return templates.length > 1 ? `message ${i}: ${problem}` : problem;
  }
  return undefined;
}
