// Vendored from OpenTelemetry JS, @opentelemetry/core 2.12.1 (build/src/trace/TraceState.js and
// build/src/internal/validators.js), Copyright The OpenTelemetry Authors, Apache License 2.0
// (https://github.com/open-telemetry/opentelemetry-js, LICENSE in that repository). Rewritten
// in TypeScript, same behaviour: evaltrace does not depend on @opentelemetry/core at run time
// (its dependency on @opentelemetry/semantic-conventions alone is some 10 MB installed).
// test/util/w3c-trace-context.test.ts compares this file with core's on a set of headers.
import type { TraceState as ApiTraceState } from "@opentelemetry/api";

/** W3C: at most 32 list members are kept. */
const MAX_TRACE_STATE_ITEMS = 32;
/** W3C: at most 512 characters are kept (members past it are dropped whole). */
const MAX_TRACE_STATE_LEN = 512;
const LIST_MEMBERS_SEPARATOR = ",";
const LIST_MEMBER_KEY_VALUE_SPLITTER = "=";

const VALID_KEY_CHAR_RANGE = "[_0-9a-z-*/]";
const VALID_KEY = `[a-z]${VALID_KEY_CHAR_RANGE}{0,255}`;
const VALID_VENDOR_KEY = `[a-z0-9]${VALID_KEY_CHAR_RANGE}{0,240}@[a-z]${VALID_KEY_CHAR_RANGE}{0,13}`;
const VALID_KEY_REGEX = new RegExp(`^(?:${VALID_KEY}|${VALID_VENDOR_KEY})$`);
const VALID_VALUE_BASE_REGEX = /^[ -~]{0,255}[!-~]$/;
const INVALID_VALUE_COMMA_EQUAL_REGEX = /,|=/;

/**
 * A `tracestate` key (W3C): up to 256 characters, starting with a lowercase letter, of lowercase
 * letters, digits, `_`, `-`, `*` and `/`; or a multi-tenant `tenant@vendor` key.
 */
export function validateKey(key: string): boolean {
  return VALID_KEY_REGEX.test(key);
}

/** A `tracestate` value (W3C): up to 256 printable ASCII characters, not ending in a space, without `,` or `=`. */
export function validateValue(value: string): boolean {
  return VALID_VALUE_BASE_REGEX.test(value) && !INVALID_VALUE_COMMA_EQUAL_REGEX.test(value);
}

/**
 * The W3C `tracestate` header as an immutable list of vendor entries, as
 * `@opentelemetry/core`'s `TraceState`: parsed lazily (on the first read); invalid members are
 * skipped, and so is a member that would take the list past 512 characters; parsing stops at
 * 32 members. A new or updated entry moves to the front; a `set` that is invalid or would take
 * the list past 512 characters returns the list unchanged.
 */
export class TraceState implements ApiTraceState {
  private length: number;
  private readonly raw: string;
  /** The entries, most recently set last (serialize() writes them in reverse). */
  private state: Map<string, string> | undefined;

  constructor(rawTraceState?: string) {
    this.raw = typeof rawTraceState === "string" ? rawTraceState : "";
    this.length = this.raw.length;
  }

  set(key: string, value: string): TraceState {
    if (!validateKey(key) || !validateValue(value)) return this;
    const current = this.entries();
    const currentValue = current.get(key);
    // An existing key changes the length by the difference of the values; a new one adds the
    // key, the value, "=" and (when there are others) ",".
    let newLength = this.length;
    if (typeof currentValue === "string") newLength += value.length - currentValue.length;
    else newLength += key.length + value.length + (current.size > 0 ? 2 : 1);
    if (newLength > MAX_TRACE_STATE_LEN) return this;
    const next = new Map(current);
    next.delete(key);
    next.set(key, value);
    return TraceState.fromEntries(next, newLength);
  }

  unset(key: string): TraceState {
    const current = this.entries();
    const currentValue = current.get(key);
    if (typeof currentValue !== "string") return this;
    let newLength = this.length - (key.length + currentValue.length + 1);
    if (current.size > 1) newLength -= 1;
    const next = new Map(current);
    next.delete(key);
    return TraceState.fromEntries(next, newLength);
  }

  get(key: string): string | undefined {
    return this.entries().get(key);
  }

  serialize(): string {
    // The map holds the entries most recent last; the header lists them most recent first.
    let serialized = "";
    let index = 0;
    for (const [key, value] of this.entries()) {
      if (index > 0) serialized = LIST_MEMBERS_SEPARATOR + serialized;
      serialized = `${key}${LIST_MEMBER_KEY_VALUE_SPLITTER}${value}${serialized}`;
      index++;
    }
    return serialized;
  }

  /** The entries, parsed from the raw header on the first call. */
  private entries(): Map<string, string> {
    if (this.state) return this.state;
    const members = new Map<string, string>();
    let currentLength = 0;
    for (const member of this.raw.split(LIST_MEMBERS_SEPARATOR)) {
      const m = member.trim();
      const idx = m.indexOf(LIST_MEMBER_KEY_VALUE_SPLITTER);
      if (idx === -1) continue;
      const key = m.slice(0, idx);
      const value = m.slice(idx + 1);
      if (!validateKey(key) || !validateValue(value)) continue;
      // A member that would take the list past the limit is skipped (a later, shorter one may fit).
      const futureLength = currentLength + m.length + (members.size > 0 ? 1 : 0);
      if (futureLength > MAX_TRACE_STATE_LEN) continue;
      members.set(key, value);
      currentLength = futureLength;
      if (members.size >= MAX_TRACE_STATE_ITEMS) break;
    }
    this.length = currentLength;
    this.state = new Map([...members.entries()].reverse());
    return this.state;
  }

  private static fromEntries(state: Map<string, string>, length: number): TraceState {
    const traceState = new TraceState();
    traceState.state = state;
    traceState.length = length;
    return traceState;
  }
}
