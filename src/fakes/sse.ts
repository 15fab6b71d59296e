import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** One server-sent event: an optional `event:` name and its `data:` (one line of JSON or text). */
export interface SseEvent {
  event?: string;
  data: string;
}

/** How a fake streams: pacing, and a failure part-way. */
export interface SseOptions {
  /** Pause before every event after the first, in milliseconds (lets a client abort mid-stream). */
  delayMs?: number;
  /** After this many events, send `failure` instead of the rest and end the stream. */
  failAfter?: number;
  /** The API's in-stream error event(s), sent at `failAfter`. */
  failure?: SseEvent[];
  /** Extra response headers (request ids). */
  headers?: Record<string, string>;
}

/** A named event whose data is `value` as JSON. */
export const jsonEvent = (value: unknown, event?: string): SseEvent => (event === undefined ? { data: JSON.stringify(value) } : { event, data: JSON.stringify(value) });

/**
 * Writes `events` as a `text/event-stream` response (WHATWG HTML, "Server-sent events": `event:`
 * and `data:` lines, a blank line after each event). Stops early, without error, when the client
 * goes away.
 */
export async function writeSse(res: ServerResponse, events: SseEvent[], options: SseOptions = {}): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...options.headers });
  const gone = () => res.destroyed || res.writableEnded;
  const failAt = options.failAfter !== undefined && options.failAfter >= 0 ? options.failAfter : Number.POSITIVE_INFINITY;
  const out = failAt < events.length ? [...events.slice(0, failAt), ...(options.failure ?? [])] : events;
  for (let i = 0; i < out.length; i++) {
    if (i > 0 && options.delayMs !== undefined && options.delayMs > 0) await sleep(options.delayMs);
    if (gone()) return;
    const e = out[i]!;
    res.write(`${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${e.data}\n\n`);
  }
  if (!gone()) res.end();
}
