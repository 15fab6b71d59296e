import { SECURITY_HEADERS } from "./security-headers.js";
import type { IncomingMessage, ServerResponse } from "node:http";

/** What a write changed, as the viewer hears it. */
export interface ViewerEvent {
  /** The store's write counter after the writes. */
  version: number;
  /** Traces stored in all. */
  traces: number;
  /** Uuids of the traces created or updated since the last event (at most 200; `more` counts the rest). */
  changed: string[];
  more: number;
}

/**
 * Live updates for the viewer as server-sent events (`GET /_dev/events`): after writes, one
 * `change` event per {@link ViewerEvents.coalesceMillis}, naming the traces that changed, so the
 * page re-reads only what it shows instead of polling. A comment line every 15 s keeps proxies
 * from closing the stream.
 */
export class ViewerEvents {
  private readonly clients = new Set<ServerResponse>();
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private last: { version: number; traces: number } = { version: 0, traces: 0 };

  /** @param coalesceMillis writes within this time become one event. @default 200 */
  constructor(private readonly coalesceMillis = 200) {}

  /** Open streams. */
  get size(): number {
    return this.clients.size;
  }

  /** Starts an event stream on `res`; it ends when the client goes away or {@link close} runs. */
  attach(req: IncomingMessage, res: ServerResponse, now: { version: number; traces: number }): void {
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify(now)}\n\n`);
    this.clients.add(res);
    req.socket.setTimeout(0);
    res.on("close", () => this.clients.delete(res));
    this.heartbeat ??= setInterval(() => {
      for (const c of this.clients) c.write(": keep-alive\n\n");
    }, 15_000).unref();
  }

  /** Notes a write; the event goes out once the coalescing time has passed. */
  publish(version: number, traces: number, changed: Iterable<string>): void {
    for (const uuid of changed) this.pending.add(uuid);
    this.last = { version, traces };
    if (this.clients.size === 0) {
      this.pending.clear();
      return;
    }
    this.timer ??= setTimeout(() => this.send(), this.coalesceMillis).unref();
  }

  private send(): void {
    this.timer = undefined;
    const all = [...this.pending];
    this.pending = new Set();
    const event: ViewerEvent = { ...this.last, changed: all.slice(0, 200), more: Math.max(0, all.length - 200) };
    const line = `event: change\ndata: ${JSON.stringify(event)}\n\n`;
    for (const c of this.clients) c.write(line);
  }

  /** Ends every stream and stops the timers. */
  close(): void {
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
