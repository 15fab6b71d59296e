/**
 * The argument checks of `flush()`, `shutdown()` and `deliver()`: a mistake throws a TypeError
 * naming the call, the value and the fix, as `configure()` does, instead of being read as
 * something else (an object taken for a number of milliseconds).
 */

import { describeValue } from "../util/describe-value.js";

/** What was given: a primitive with its type ("number -1"), else as configure() names it. */
function describe(value: unknown): string {
  return value !== null && typeof value !== "object" && typeof value !== "string" && typeof value !== "function" ? `${typeof value} ${String(value)}` : describeValue(value);
}

/** A budget in milliseconds: undefined (the default), or a number >= 0. */
export function checkTimeoutArg(call: "flush" | "shutdown" | "deliver", value: unknown): void {
  if (value === undefined || (typeof value === "number" && value >= 0)) return;
  const signature = call === "deliver" ? "deliver(waitUntil, timeoutMillis)" : `${call}(timeoutMillis)`;
  const inner = value !== null && typeof value === "object" && "timeoutMillis" in value ? (value as { timeoutMillis: unknown }).timeoutMillis : undefined;
  const fix = typeof inner === "number" ? `; write ${call === "deliver" ? `deliver(waitUntil, ${inner})` : `${call}(${inner})`}` : "";
  throw new TypeError(`evaltrace: ${signature} takes a number of milliseconds >= 0; got ${describe(value)}${fix}`);
}

/** `deliver()`'s first argument: undefined, or the platform's `waitUntil` function. */
export function checkWaitUntilArg(value: unknown): void {
  if (value === undefined || typeof value === "function") return;
  const fix = typeof value === "number" ? `; for a budget alone write deliver(undefined, ${value})` : "";
  throw new TypeError(`evaltrace: deliver(waitUntil, timeoutMillis) takes the platform's waitUntil function first (ctx.waitUntil.bind(ctx)); got ${describe(value)}${fix}`);
}
