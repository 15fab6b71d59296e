import { defaultSerializeLimits, toText } from "../spans/serialize.js";
import type { JsonValue } from "../spans/json-value.js";

/**
 * `toText(value)` for a value that is already JSON-safe (a captured value), without copying it:
 * `toText` walks and rebuilds any object to bound it, which for a captured value within the
 * default limits rebuilds it unchanged. Here an allocation-free pass checks that it is within
 * them (exactly as the walk would find: string lengths, the shared character budget, depth,
 * item counts, no NUL, plain arrays and objects only) and it goes to `JSON.stringify` as it
 * is; anything else takes `toText`'s walk. Same text either way.
 *
 * The text of the last object is kept until {@link forgetJsonText}: a trace's input and its
 * root span's input are the same value, formatted once.
 */
export function jsonText(value: JsonValue): string {
  // What toText makes of a number (non-finite ones become null) without setting up JSON.stringify.
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (value === null || typeof value !== "object") return toText(value);
  if (value === lastValue) return lastText;
  let text = Array.isArray(value) ? scalarListText(value) : undefined;
  if (text !== undefined) {
    lastValue = value;
    lastText = text;
    return text;
  }
  budget = defaultSerializeLimits.maxTotalChars;
  try {
    // Whatever throws here (a getter, a cycle JSON.stringify meets) is left to toText's walk.
    if (fitsUnchanged(value, 0)) text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  text ??= toText(value);
  lastValue = value;
  lastText = text;
  return text;
}

/**
 * The JSON text of a short list of finite numbers, booleans and nulls (a call's arguments, as
 * captured), made without `JSON.stringify` (whose setup costs more than the text); undefined for
 * any other list. `String` of a finite number is the text JSON gives it (`-0` included).
 */
function scalarListText(list: readonly unknown[]): string | undefined {
  const n = list.length;
  if (n > SCALAR_LIST_MAX) return undefined;
  let text = "[";
  for (let i = 0; i < n; i++) {
    const v = list[i];
    if (i > 0) text += ",";
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return undefined;
      text += String(v);
    } else if (typeof v === "boolean") text += v ? "true" : "false";
    else if (v === null) text += "null";
    else return undefined;
  }
  return `${text}]`;
}

/** Longest list {@link scalarListText} writes. */
const SCALAR_LIST_MAX = 8;

/** Lets go of the value {@link jsonText} remembers (it may be large). */
export function forgetJsonText(): void {
  lastValue = undefined;
  lastText = "";
}

let lastValue: JsonValue | undefined;
let lastText = "";
let budget = 0;

const NUL = "\u0000";

/** Whether a string is kept as it is by the walk at the current budget; consumes it. */
function stringFits(s: string): boolean {
  if (s.length > defaultSerializeLimits.maxStringChars || s.length > Math.max(budget, 0) || s.includes(NUL)) return false;
  budget -= s.length;
  return true;
}

/** Whether the walk of `toJsonValue` (default limits) returns `v` unchanged, at this depth. */
function fitsUnchanged(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
      return stringFits(v);
    case "number":
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (v === null) return true;
  const { maxDepth, maxItems } = defaultSerializeLimits;
  if (depth >= maxDepth || budget <= 0) return false;
  if (Array.isArray(v)) {
    if (v.length > maxItems) return false;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (item !== undefined && !fitsUnchanged(item, depth + 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const obj = v as { [key: string]: unknown };
  if (typeof obj.toJSON === "function" || typeof obj.then === "function") return false;
  const keys = Object.keys(obj);
  if (keys.length > maxItems) return false;
  for (const key of keys) {
    const item = obj[key];
    if (item === undefined) continue;
    // The walk bounds the value first, then the key; a "__proto__" key would not survive it.
    if (!fitsUnchanged(item, depth + 1) || key === "__proto__" || !stringFits(key)) return false;
  }
  return true;
}
