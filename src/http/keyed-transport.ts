import type { RequestBody, SendOptions, TransportOptions, TransportOutcome } from "./transport.js";
import type { HttpMethod } from "./sender.js";
import { Transport } from "./transport.js";
import { MAX_REMEMBERED_TRACES, RecentTraces } from "../util/recent-traces.js";

/** Longest per-trace API key taken; anything longer is not a key. */
const MAX_KEY_CHARS = 512;

/**
 * Whether a value can be sent as a per-trace API key: a non-empty string of visible ASCII
 * characters (a header value cannot hold anything else; a key with a line break in it would
 * fail every request of its batch).
 */
export function isUsableKey(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_KEY_CHARS && /^[\x21-\x7e]+$/.test(value);
}

/** Most per-key connection pools kept at once; the least recently used idle one is closed past it. */
const MAX_KEYED_TRANSPORTS = 64;

interface Keyed {
  transport: Transport;
  inFlight: number;
}

/**
 * The SDK's transport, able to send a request with another project's API key (a trace routed
 * with `observe({ apiKey })`): one `Transport` per key, made on first use, with its own retry
 * state, so a key the service refuses (401) or a slow tenant never holds the others up. The
 * configured key goes through this transport itself. At most {@link MAX_KEYED_TRANSPORTS} are
 * kept; past that, the least recently used idle one is closed (made again when needed).
 */
export class KeyedTransport extends Transport {
  private readonly base: TransportOptions;
  private readonly byKey = new Map<string, Keyed>();
  /** Every per-trace key seen lately, for the logger to scrub (bounded; a key outlives its pool here). */
  private readonly seen = new RecentTraces<true>(MAX_REMEMBERED_TRACES);

  constructor(options: TransportOptions) {
    super(options);
    this.base = options;
  }

  /** Notes a per-trace key as a secret, as soon as a trace is given it (before anything is sent). */
  remember(apiKey: string): void {
    this.seen.set(apiKey, true);
  }

  /** The per-trace keys seen lately: the logger scrubs them, like the configured key. */
  keys(): string[] {
    return this.seen.size === 0 ? [] : [...this.seen.keysInOrder()];
  }

  /** Sends with `apiKey` when given (and not the configured key), else as {@link Transport.send}. */
  override async send(method: HttpMethod, path: string, body?: RequestBody, apiKey?: string, options?: SendOptions): Promise<TransportOutcome> {
    if (apiKey === undefined || apiKey === this.base.apiKey || this.isClosed) return super.send(method, path, body, undefined, options);
    const keyed = this.transportFor(apiKey);
    keyed.inFlight++;
    try {
      return await keyed.transport.send(method, path, body, undefined, options);
    } finally {
      keyed.inFlight--;
    }
  }

  override async close(): Promise<void> {
    const all = [...this.byKey.values()];
    await Promise.all([super.close(), ...all.map((k) => k.transport.close())]);
  }

  private transportFor(apiKey: string): Keyed {
    let keyed = this.byKey.get(apiKey);
    if (keyed) {
      // Most recently used last.
      this.byKey.delete(apiKey);
      this.byKey.set(apiKey, keyed);
      return keyed;
    }
    if (this.byKey.size >= MAX_KEYED_TRANSPORTS) {
      for (const [key, k] of this.byKey) {
        if (k.inFlight > 0) continue;
        this.byKey.delete(key);
        void k.transport.close();
        break;
      }
    }
    keyed = { transport: new Transport({ ...this.base, apiKey }), inFlight: 0 };
    this.byKey.set(apiKey, keyed);
    return keyed;
  }
}

/** Groups a batch by the API key each trace goes to, in order: one request per key, never mixed. */
export function groupByKey<T extends { rec: { apiKey?: string | undefined } }>(batch: T[]): T[][] {
  const groups = new Map<string | undefined, T[]>();
  for (const p of batch) {
    const list = groups.get(p.rec.apiKey);
    if (list) list.push(p);
    else groups.set(p.rec.apiKey, [p]);
  }
  return [...groups.values()];
}

/** Answers that refuse the key itself: splitting the batch to find a bad trace would not help. */
export const keyRefusals: ReadonlySet<number> = new Set([401, 403]);
