const brand = (name: string) => Symbol.for(`evaltrace.${name}`);
const BASE = brand("EvaltraceError");
const VALIDATION = brand("ValidationError");
const SERVICE = brand("ServiceError");

function has(value: unknown, mark: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[mark] === true;
}

/**
 * Base of the client's errors, with a stable `code`. `instanceof` works across ESM and CommonJS
 * copies of the package (it checks a global symbol, not the class identity).
 */
export class EvaltraceError extends Error {
  readonly code: "validation" | "service" | "configuration";

  constructor(code: EvaltraceError["code"], message: string) {
    super(message);
    this.name = "EvaltraceError";
    this.code = code;
    Object.defineProperty(this, BASE, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return has(value, BASE);
  }
}

/** A request the spec says the service rejects, caught before anything was sent. */
export class ValidationError extends EvaltraceError {
  /** The offending field, e.g. `body.metrics[0].evaluationParams`. */
  readonly field: string;

  constructor(message: string) {
    super("validation", message);
    this.name = "ValidationError";
    this.field = /^([\w.[\]]+)/.exec(message)?.[1] ?? "body";
    Object.defineProperty(this, VALIDATION, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return has(value, VALIDATION);
  }
}

/** The service rejected a request, or it could not be reached. Never carries the API key. */
export class ServiceError extends EvaltraceError {
  /** HTTP status; absent when no response arrived. */
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  /** The response body, when there was one. */
  readonly body: unknown;
  /** Whether trying again later may succeed (network errors, 408, 429, 5xx). */
  readonly isRetryable: boolean;

  constructor(init: { status?: number; method: string; path: string; message: string; body?: unknown }) {
    super("service", `${init.method} ${init.path}: ${init.message}`);
    this.name = "ServiceError";
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
    this.isRetryable = init.status === undefined || init.status === 408 || init.status === 429 || init.status >= 500;
    Object.defineProperty(this, SERVICE, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return has(value, SERVICE);
  }
}
