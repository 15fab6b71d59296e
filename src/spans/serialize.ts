import type { JsonValue } from "./json-value.js";
import { isLcBlob, readable } from "./lc-values.js";
import { describeError } from "../util/describe-error.js";
import { truncateString } from "../util/string-limits.js";

/** Bounds on one captured value. */
export interface SerializeLimits {
  /** Longest string kept, in characters; longer ones are cut with a marker. */
  maxStringChars: number;
  /** Total characters of strings and keys kept across the whole value. */
  maxTotalChars: number;
  /** Deepest nesting kept. */
  maxDepth: number;
  /** Most keys of an object or items of an array kept. */
  maxItems: number;
}

/** The limits used when none are configured: 64 Ki characters per string, 512 Ki in all, depth 24, 1000 items. */
export const defaultSerializeLimits: SerializeLimits = {
  maxStringChars: 64 * 1024,
  maxTotalChars: 512 * 1024,
  maxDepth: 24,
  maxItems: 1000,
};

const NUL = "\u0000";

interface WalkState {
  budget: number;
  /** The objects being walked, outermost first: a cycle is an object already on it. */
  stack: object[];
  limits: SerializeLimits;
}

/**
 * Turns any value into a JSON value that `JSON.stringify` cannot throw on: cycles become
 * `"<circular>"`, BigInt and symbols strings, functions `"[Function name]"`, streams (an async
 * iterable class instance, a ReadableStream) `"[stream Name]"`, binary data a short
 * description, Maps objects, Sets arrays, Errors `{name, message, stack}`, non-finite numbers
 * `null`; NUL characters are stripped and everything is bounded by `limits`. Never throws.
 */
export function toJsonValue(value: unknown, limits: SerializeLimits = defaultSerializeLimits): JsonValue {
  // The common cases, without setting up a walk.
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? value : null;
    case "boolean":
      return value;
    case "string":
      if (value.length <= limits.maxStringChars && !value.includes(NUL)) return value;
  }
  if (value === null || value === undefined) return null;
  const state: WalkState = { budget: limits.maxTotalChars, stack: [], limits };
  try {
    return walk(state, value, 0) ?? null;
  } catch (err) {
    return `[unserializable: ${describeError(err)}]`;
  }
}

function str(state: WalkState, s: string): string {
  // Cut first, then strip NULs from what is kept: a huge string is never copied whole.
  const out = truncateString(s, Math.min(state.limits.maxStringChars, Math.max(state.budget, 0)));
  state.budget -= out.length;
  return out;
}

function walk(state: WalkState, v: unknown, depth: number): JsonValue | undefined {
  switch (typeof v) {
    case "string":
      return str(state, v);
    case "number":
      return Number.isFinite(v) ? v : null;
    case "boolean":
      return v;
    case "bigint":
      return v.toString();
    case "symbol":
      return str(state, v.toString());
    case "function":
      return str(state, `[Function ${(v as { name?: string }).name || "anonymous"}]`);
    case "undefined":
      return undefined;
  }
  if (v === null) return null;
  const obj = v as object;
  if (state.stack.includes(obj)) return "<circular>";
  if (depth >= state.limits.maxDepth) return "[max depth]";
  if (state.budget <= 0) return "[truncated]";
  state.stack.push(obj);
  try {
    return walkObject(state, obj, depth);
  } catch (err) {
    return str(state, `[unserializable: ${describeError(err)}]`);
  } finally {
    state.stack.pop();
  }
}

function walkObject(state: WalkState, obj: object, depth: number): JsonValue | undefined {
  const { maxItems } = state.limits;
  if (Array.isArray(obj) || obj instanceof Set) {
    const items = Array.isArray(obj) ? obj : [...obj];
    const n = Math.min(items.length, maxItems);
    // Sized up front: a captured value (often a call's few arguments) is held until its trace
    // is delivered, and an array grown by push keeps 17 slots for 1 or 2 items.
    const out: JsonValue[] = new Array<JsonValue>(n);
    for (let i = 0; i < n; i++) out[i] = walk(state, items[i], depth + 1) ?? null;
    if (items.length > n) out.push(`[${items.length - n} more items]`);
    return out;
  }
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
  if (obj instanceof Error) {
    const out: { [key: string]: JsonValue } = { name: str(state, obj.name), message: str(state, obj.message) };
    if (obj.stack) out.stack = str(state, obj.stack);
    return out;
  }
  if (ArrayBuffer.isView(obj)) return `[${obj.constructor.name} ${obj.byteLength} bytes]`;
  if (obj instanceof ArrayBuffer) return `[ArrayBuffer ${obj.byteLength} bytes]`;
  if (obj instanceof RegExp) return str(state, String(obj));
  if (obj instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    let i = 0;
    for (const [k, val] of obj) {
      if (i++ >= maxItems) break;
      const item = walk(state, val, depth + 1);
      if (item !== undefined) out[str(state, typeof k === "string" ? k : String(k))] = item;
    }
    return out;
  }
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    // LangChain objects serialize as `{"lc":1,"type":"constructor",...}`: kept as what they stand
    // for (a message as {role, content}, a document as its text), as every other path does.
    const json = walk(state, toJSON.call(obj), depth + 1);
    return isLcBlob(json) ? (readable(json) ?? null) : json;
  }
  if (typeof (obj as { then?: unknown }).then === "function") return "[Promise]";
  // A stream returned to the caller (an SDK's Stream, a ReadableStream): its content is what the
  // reader reads (the model call's span has it), not its fields.
  if (isStreamObject(obj)) return str(state, `[stream ${obj.constructor?.name || "object"}]`);
  const out: { [key: string]: JsonValue } = {};
  const keys = Object.keys(obj);
  const n = Math.min(keys.length, maxItems);
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    let item: JsonValue | undefined;
    try {
      item = walk(state, (obj as Record<string, unknown>)[key], depth + 1);
    } catch (err) {
      item = str(state, `[getter threw: ${describeError(err)}]`);
    }
    if (item !== undefined) out[str(state, key)] = item;
  }
  if (keys.length > n) out["..."] = `[${keys.length - n} more keys]`;
  return out;
}

/** An instance of a class that is read as a stream: async iterable, or a web ReadableStream. */
function isStreamObject(obj: object): boolean {
  const proto = Object.getPrototypeOf(obj) as object | null;
  if (proto === Object.prototype || proto === null) return false;
  return typeof (obj as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function" || (typeof ReadableStream === "function" && obj instanceof ReadableStream);
}

/** The value as text: strings as they are (bounded), anything else as JSON. Never throws. */
export function toText(value: unknown, limits: SerializeLimits = defaultSerializeLimits): string {
  const json = toJsonValue(value, limits);
  return typeof json === "string" ? json : JSON.stringify(json);
}
