import { missingError } from "./errors.js";
import { renderJinja } from "./jinja.js";

/** How a prompt's template marks its variables (spec 4.8: `interpolationType`). */
export type InterpolationType = "MUSTACHE" | "MUSTACHE_WITH_SPACE" | "FSTRING" | "DOLLAR_BRACKETS" | "JINJA";

/** The values a template's variables take, by name. */
export type PromptVariables = Readonly<Record<string, unknown>>;

/**
 * The placeholder of each plain interpolation type, as the vendor's SDK renders them
 * (deepeval/prompt/utils.py): a variable is an identifier (`[A-Za-z_][A-Za-z0-9_]*`); anything
 * else between the delimiters (JSON, `{user.name}`, `{ x }` under FSTRING, `{{  x  }}`) is text
 * and stays as it is. There is no escape: `{{x}}` under FSTRING renders `{value}`, the way the
 * vendor's regular expression matches the inner `{x}`.
 */
const PLACEHOLDERS: Readonly<Record<Exclude<InterpolationType, "JINJA">, RegExp>> = {
  MUSTACHE: /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g,
  MUSTACHE_WITH_SPACE: /\{\{ ([A-Za-z_][A-Za-z0-9_]*) \}\}/g,
  FSTRING: /\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
  DOLLAR_BRACKETS: /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
};

/** The interpolation types, in the spec's order. */
export const INTERPOLATION_TYPES: readonly InterpolationType[] = ["MUSTACHE", "MUSTACHE_WITH_SPACE", "FSTRING", "DOLLAR_BRACKETS", "JINJA"];

/**
 * A value as it appears in rendered text: strings as they are, numbers and booleans as
 * `String()` writes them, `null`, arrays and objects as JSON.
 */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value === "object") {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** Whether `name` is given: an own property whose value is not `undefined`. */
function given(variables: PromptVariables, name: string): boolean {
  return Object.hasOwn(variables, name) && variables[name] !== undefined;
}

/**
 * Renders one template with `variables`. Every variable the template uses must be given (a
 * value of `undefined` counts as not given); extra variables are ignored. Throws a
 * {@link PromptInterpolationError} naming all missing variables; nothing is half-rendered.
 */
export function interpolateText(type: InterpolationType, template: string, variables: PromptVariables): string {
  if (type === "JINJA") return renderJinja(template, variables);
  const pattern = PLACEHOLDERS[type];
  if (!pattern) throw new TypeError(`evaltrace: unknown interpolationType ${String(type)}; expected one of ${INTERPOLATION_TYPES.join(", ")}`);
  const missing = new Set<string>();
  const out = template.replace(pattern, (_match, name: string) => {
    if (!given(variables, name)) {
      missing.add(name);
      return "";
    }
    return formatValue(variables[name]);
  });
  if (missing.size > 0) throw missingError([...missing]);
  return out;
}
