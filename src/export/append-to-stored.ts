import { spanListKeys } from "../encode/wire.js";

/**
 * A trace the service already has when its `POST` is answered 409 ("already exists"): another
 * part of one upstream trace, sent before (requests that share an incoming
 * `traceparent`: a retried or fanned-out upstream call, served one after the other or by another
 * process). Its spans are appended with `PUT /v1/traces/:uuid` instead, so that each request's
 * spans reach the service (each under a root of its own). The trace's own fields stay as the
 * first part sent them: only the spans and the metadata records are appended (spec 4.6). A 409
 * to the `PUT` means the spans are stored already (this trace's own earlier attempt whose answer
 * was lost).
 */

/** The span lists of a trace on the wire (spec 2.5), appended by `PUT`. */
const SPAN_LISTS = Object.values(spanListKeys);

/** The `PUT /v1/traces/:uuid` that appends a trace's spans to the stored trace of the same uuid. */
export function appendRequest(traceText: string): { path: string; body: string } {
  const trace = JSON.parse(traceText) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const list of SPAN_LISTS) if (Array.isArray(trace[list]) && trace[list].length > 0) body[list] = trace[list];
  if (trace.metadata !== undefined && trace.metadata !== null) body.metadata = trace.metadata;
  return { path: `/v1/traces/${encodeURIComponent(String(trace.uuid))}`, body: JSON.stringify(body) };
}
