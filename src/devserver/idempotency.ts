import { createHash } from "node:crypto";
import { HttpError } from "./http-error.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { IdempotencyRecord } from "./store/store.js";

/** The request header, lower case as Node presents it. */
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** Set (to `true`) on a response that repeats a remembered one instead of processing the request. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** Longest key accepted; a UUID has 36 characters. */
export const MAX_KEY_LENGTH = 255;

/** How long and how many remembered answers are kept. */
export interface IdempotencyLimits {
  /** A key is forgotten this long after its first request was processed. */
  ttlMillis: number;
  /** At most this many answers are remembered; beyond it the oldest is forgotten. */
  maxEntries: number;
}

/** 24 hours and 10,000 answers. */
export const DEFAULT_IDEMPOTENCY_LIMITS: Readonly<IdempotencyLimits> = { ttlMillis: 24 * 3_600_000, maxEntries: 10_000 };

/** Who sent a request under which key, and what it was: what a later request is compared with. */
export interface IdempotentRequest {
  scope: string;
  key: string;
  method: string;
  path: string;
  bodyDigest: string;
  /** The server's clock when the request arrived. */
  now: number;
}

/** A response as sent: what a retry is answered with. */
export interface SentResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * What {@link IdempotencyStore.claim} decides: repeat a remembered answer, or process the request
 * as the first with its key and then call `finish` (always, exactly once) with what was answered.
 */
export type Claim = { kind: "replay"; record: IdempotencyRecord } | { kind: "first"; finish: (response: SentResponse | undefined) => void };

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The `Idempotency-Key` of a request, or undefined without one. The value is taken as sent, or
 * unquoted when it is a structured-field string (`"..."`, the form of the IETF draft). An empty,
 * overlong (over 255 characters) or non-printable value is rejected with 400.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(", ") : header;
  const key = /^"([^"\\]*)"$/.exec(raw)?.[1] ?? raw;
  if (key.length === 0) throw new HttpError(400, "the Idempotency-Key header is empty; send one unique value per logical request, e.g. a UUID");
  if (key.length > MAX_KEY_LENGTH) {
    throw new HttpError(400, `the Idempotency-Key header is ${key.length} characters long; at most ${MAX_KEY_LENGTH} are accepted (a UUID has 36)`);
  }
  if (!VISIBLE_ASCII.test(key)) {
    throw new HttpError(400, "the Idempotency-Key header may hold only visible ASCII characters (no spaces or control characters) and one key per request");
  }
  return key;
}

/** Whether an answer is remembered: every one but those a client is meant to retry (408, 429, 5xx). */
export function isRemembered(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

/** An object's keys as `Object.keys` lists them, the same in code-unit order, and the text before each value. */
interface KeyOrder {
  listed: string[];
  sorted: string[];
  /** `{"key":` for the first key, `,"key":` for the others. */
  prefixes: string[];
}

/** Key orders met lately: a body's objects share a few key lists (every span of a list, say). */
const recentOrders: KeyOrder[] = [];
const MAX_RECENT_ORDERS = 16;
/** Objects with more keys than this are not remembered (nothing large outlives its request). */
const MAX_REMEMBERED_KEYS = 64;
let nextOrderSlot = 0;

function keyOrder(value: object): KeyOrder {
  const listed = Object.keys(value);
  search: for (const order of recentOrders) {
    if (order.listed.length !== listed.length) continue;
    for (let i = 0; i < listed.length; i++) if (order.listed[i] !== listed[i]) continue search;
    return order;
  }
  let sorted = listed;
  for (let i = 1; i < listed.length; i++) {
    if (listed[i - 1]! > listed[i]!) {
      sorted = [...listed].sort();
      break;
    }
  }
  const order = { listed, sorted, prefixes: sorted.map((k, i) => `${i > 0 ? "," : "{"}${JSON.stringify(k)}:`) };
  if (listed.length <= MAX_REMEMBERED_KEYS) {
    recentOrders[nextOrderSlot] = order;
    nextOrderSlot = (nextOrderSlot + 1) % MAX_RECENT_ORDERS;
  }
  return order;
}

/** An array or object being written: its key order (an object) and the next member to write. */
class Open {
  next = 0;
  constructor(
    readonly value: unknown[] | Record<string, unknown>,
    readonly order: KeyOrder | undefined,
  ) {}
}

/** Members of an object written in one go before the writer may pause. */
const MEMBERS_PER_STEP = 64;

/** JSON text of a value that is not an array or object (`undefined` and functions read as null). */
const scalarText = (value: unknown) => JSON.stringify(value) ?? "null";

/**
 * Writes canonical JSON (object keys sorted at every level) without recursion: the open arrays
 * and objects are a stack, so the work can stop after any member and go on later. The text is
 * handed to `sink` in pieces of about {@link FLUSH_CHARS} (all at the end without a sink).
 */
class CanonicalWriter {
  private readonly stack: Open[] = [];
  private text = "";

  constructor(
    value: unknown,
    private readonly sink?: (text: string) => void,
  ) {
    this.begin(value);
  }

  /** Writes a scalar whole, or opens an array or object. */
  private begin(value: unknown): void {
    if (value === null || typeof value !== "object") {
      this.text += scalarText(value);
    } else if (Array.isArray(value)) {
      this.text += "[";
      this.stack.push(new Open(value, undefined));
    } else {
      const order = keyOrder(value);
      if (order.sorted.length === 0) this.text += "{}";
      else this.stack.push(new Open(value as Record<string, unknown>, order));
    }
  }

  /** Writes on until the value is complete (true) or `pause()` says to stop for now (false). */
  run(pause: () => boolean): boolean {
    const stack = this.stack;
    while (stack.length > 0) {
      const open = stack[stack.length - 1]!;
      if (open.order === undefined) this.listStep(open);
      else this.objectStep(open, open.order);
      if (this.sink && this.text.length >= FLUSH_CHARS) this.sink(this.take());
      if (pause()) return false;
    }
    return true;
  }

  /** The next item of an array, or its end. */
  private listStep(open: Open): void {
    const list = open.value as unknown[];
    const at = open.next;
    if (at === list.length) {
      this.stack.pop();
      this.text += "]";
      return;
    }
    if (at > 0) this.text += ",";
    open.next++;
    // A hole of a sparse array is written as nothing, as `[...].map(...).join(",")` does.
    if (at in list) this.begin(list[at]);
  }

  /** The next members of an object: scalars written on the spot, up to the first array or object (opened). */
  private objectStep(open: Open, order: KeyOrder): void {
    const object = open.value as Record<string, unknown>;
    const { sorted, prefixes } = order;
    const stop = Math.min(sorted.length, open.next + MEMBERS_PER_STEP);
    for (let at = open.next; at < stop; at++) {
      const value = object[sorted[at]!];
      this.text += prefixes[at]!;
      if (value !== null && typeof value === "object") {
        open.next = at + 1;
        this.begin(value);
        return;
      }
      this.text += scalarText(value);
    }
    open.next = stop;
    if (stop === sorted.length) {
      this.stack.pop();
      this.text += "}";
    }
  }

  /** The text written since the last call. */
  take(): string {
    const text = this.text;
    this.text = "";
    return text;
  }
}

/** Text handed to a digest at a time. */
const FLUSH_CHARS = 65_536;

const never = () => false;

/** JSON with object keys sorted at every level, so that equal documents serialize equally. */
export function canonicalJson(value: unknown): string {
  const writer = new CanonicalWriter(value);
  writer.run(never);
  return writer.take();
}

/** Digest of a parsed request body: equal JSON documents (key order aside) give equal digests. */
export function bodyDigest(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

/** {@link bodyDigest} in slices of event-loop time, for bodies of any size; the same digest. */
export async function bodyDigestSliced(body: unknown, slicer: TimeSlicer): Promise<string> {
  const hash = createHash("sha256");
  const writer = new CanonicalWriter(body, (text) => hash.update(text));
  const pause = () => slicer.due();
  while (!writer.run(pause)) await slicer.yield();
  return hash.update(writer.take()).digest("hex");
}

/** 422 unless `request` is the same request as `first` (method, path and body). */
function ensureSameRequest(first: Pick<IdempotentRequest, "key" | "method" | "path" | "bodyDigest">, request: IdempotentRequest): void {
  const key = JSON.stringify(request.key);
  if (first.method !== request.method || first.path !== request.path) {
    throw new HttpError(
      422,
      `Idempotency-Key ${key} was already used for ${first.method} ${first.path}; this request is ${request.method} ${request.path}. Send a new key with every new request`,
    );
  }
  if (first.bodyDigest !== request.bodyDigest) {
    throw new HttpError(
      422,
      `Idempotency-Key ${key} was already used for ${first.method} ${first.path} with a different body; a retry must resend the same body, a new request needs a new key`,
    );
  }
}

/**
 * The answers to writes sent with an `Idempotency-Key`, per sending API key: the first request
 * with a key is processed, a later identical one gets the same answer and changes nothing, a
 * different one under the same key gets 422, and one that arrives while the first is still being
 * processed waits for it. Answers expire after `ttlMillis` and at most `maxEntries` are kept
 * (oldest forgotten first). The records live in `records` (the persisted state), oldest first;
 * a Map indexes them, so keys such as `__proto__` are plain keys.
 */
export class IdempotencyStore {
  private readonly index = new Map<string, IdempotencyRecord>();
  private readonly running = new Map<string, { request: IdempotentRequest; done: Promise<void> }>();

  constructor(
    private readonly records: IdempotencyRecord[],
    private readonly limits: IdempotencyLimits,
  ) {
    for (const record of records) this.index.set(slot(record.scope, record.key), record);
    // A file may hold duplicates (hand-edited) or more than the cap (saved with a larger one).
    const indexed = new Set(this.index.values());
    for (let i = records.length - 1; i >= 0; i--) if (!indexed.has(records[i]!)) records.splice(i, 1);
    this.trim();
  }

  /** How many answers are remembered. */
  get size(): number {
    return this.records.length;
  }

  /** Decides what to do with a request that carries a key; waits while an identical one is processed. */
  async claim(request: IdempotentRequest): Promise<Claim> {
    const id = slot(request.scope, request.key);
    for (;;) {
      this.expire(request.now);
      const known = this.lookup(id, request.now);
      if (known) {
        ensureSameRequest(known, request);
        return { kind: "replay", record: known };
      }
      const running = this.running.get(id);
      if (!running) return this.start(id, request);
      ensureSameRequest(running.request, request);
      await running.done;
    }
  }

  private start(id: string, request: IdempotentRequest): Claim {
    let release = () => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    this.running.set(id, { request, done });
    const finish = (response: SentResponse | undefined) => {
      if (this.running.get(id)?.done !== done) return;
      this.running.delete(id);
      if (response && isRemembered(response.status)) this.remember(request, response);
      release();
    };
    return { kind: "first", finish };
  }

  private remember(request: IdempotentRequest, response: SentResponse): void {
    const { scope, key, method, path, bodyDigest, now } = request;
    const record: IdempotencyRecord = { scope, key, method, path, bodyDigest, createdAt: now, ...response };
    this.records.push(record);
    this.index.set(slot(scope, key), record);
    this.trim();
  }

  /** The live record of a slot; an expired one (possible when the clock went back) is dropped. */
  private lookup(id: string, now: number): IdempotencyRecord | undefined {
    const record = this.index.get(id);
    if (!record || this.isLive(record, now)) return record;
    this.forget(record);
    return undefined;
  }

  private isLive(record: IdempotencyRecord, now: number): boolean {
    return now < record.createdAt + this.limits.ttlMillis;
  }

  /** Forgets expired answers from the oldest on. */
  private expire(now: number): void {
    while (this.records.length > 0 && !this.isLive(this.records[0]!, now)) this.forget(this.records[0]!);
  }

  /** Forgets the oldest answers beyond the cap. */
  private trim(): void {
    while (this.records.length > this.limits.maxEntries) this.forget(this.records[0]!);
  }

  private forget(record: IdempotencyRecord): void {
    const at = this.records[0] === record ? 0 : this.records.indexOf(record);
    if (at >= 0) this.records.splice(at, 1);
    const id = slot(record.scope, record.key);
    if (this.index.get(id) === record) this.index.delete(id);
  }
}

/** One key of one API key. A space never occurs in a key, so the pair is unambiguous. */
function slot(scope: string, key: string): string {
  return `${scope} ${key}`;
}

/** Checks limits given to the server; `name` says where they came from. */
export function checkLimits(limits: Partial<IdempotencyLimits> | undefined, name: string): IdempotencyLimits {
  const merged = { ...DEFAULT_IDEMPOTENCY_LIMITS, ...limits };
  for (const field of ["ttlMillis", "maxEntries"] as const) {
    const v = merged[field];
    if (!Number.isInteger(v) || v < 1) throw new TypeError(`${name}.${field} must be a positive integer; got ${JSON.stringify(v)}`);
  }
  return merged;
}
