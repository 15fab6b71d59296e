const MARK = Symbol.for("evaltrace.PromptInterpolationError");

/**
 * A prompt could not be rendered: a variable the template uses was not given (`variables` names
 * them), or a JINJA template is invalid or fails as it runs (`variables` is then empty).
 * `instanceof` works across ESM and CommonJS copies of the package.
 */
export class PromptInterpolationError extends Error {
  /** The variables the template uses that were not given, in order of first use. */
  readonly variables: readonly string[];

  constructor(message: string, variables: readonly string[] = []) {
    super(message);
    this.name = "PromptInterpolationError";
    this.variables = variables;
    Object.defineProperty(this, MARK, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}

/** The error for variables a template uses but were not given. */
export function missingError(names: readonly string[]): PromptInterpolationError {
  const list = names.map((n) => `"${n}"`).join(", ");
  const them = names.length > 1 ? "them" : "it";
  return new PromptInterpolationError(`missing prompt variable${names.length > 1 ? "s" : ""} ${list}: the template uses ${them} but interpolate() was not given ${them}`, names);
}
