import { SchemaError } from "../protocol/schema.js";
import { HttpError } from "./http-error.js";

/** A response about to be sent. */
export interface Outcome {
  status: number;
  /** The JSON body, serialized. */
  text: string;
  /** Headers from processing the request (authentication adds its own). */
  headers: Record<string, string>;
  /** Whether a route handler ran to completion (its write, if any, happened). */
  applied: boolean;
}

export function jsonOutcome(status: number, payload: unknown, applied = false): Outcome {
  return { status, text: JSON.stringify(payload), headers: {}, applied };
}

/** The `{success: false, error}` answer to a rejection (`deprecated` too on /v2 paths). */
export function errorOutcome(err: unknown, path: string): Outcome {
  let status = 500;
  let headers: Record<string, string> = {};
  let error = `internal error: ${(err as Error).message}`;
  if (err instanceof SchemaError) {
    status = 400;
    error = err.message;
  } else if (err instanceof HttpError) {
    status = err.status;
    headers = err.headers;
    error = err.message;
  }
  const payload = path.startsWith("/v2/") ? { success: false, error, deprecated: false } : { success: false, error };
  return { ...jsonOutcome(status, payload), headers };
}
