import type { Runtime } from "../runtime/runtime.js";
import { type SerializeLimits, toJsonValue } from "../spans/serialize.js";
import { describeError } from "../util/describe-error.js";
import type { JsonValue } from "../spans/json-value.js";

let warnedMask = false;

/**
 * A captured value, masked and made JSON-safe. A throwing `mask` drops the value (fail closed:
 * nothing unmasked leaves the process) and is reported once.
 */
export function capture(rt: Runtime, value: unknown): JsonValue | undefined {
  let v = value;
  const mask = rt.options.mask;
  if (mask) {
    try {
      v = mask(value);
    } catch (err) {
      if (!warnedMask) {
        warnedMask = true;
        rt.logger.warn(`mask threw (${describeError(err)}); the value was dropped`);
      }
      return "[mask failed]";
    }
  }
  if (v === undefined) return undefined;
  return toJsonValue(v, rt.options.serializeLimits);
}

/**
 * The captured input of a call with several arguments. `args` must be an array the app cannot
 * reach (observe's rest parameter): when it holds only values the JSON-safe walk keeps as they
 * are (finite numbers, booleans, null, short strings without NUL, within the item and character
 * limits), it is the captured value itself, with no copy; otherwise it is walked like any value.
 */
export function captureArguments(rt: Runtime, args: unknown[]): JsonValue | undefined {
  if (rt.options.mask || !keptAsIs(args, rt.options.serializeLimits)) return capture(rt, args);
  return args as JsonValue[];
}

function keptAsIs(args: unknown[], limits: SerializeLimits): boolean {
  if (args.length > limits.maxItems) return false;
  let budget = limits.maxTotalChars;
  for (let i = 0; i < args.length; i++) {
    const v = args[i];
    switch (typeof v) {
      case "number":
        if (!Number.isFinite(v)) return false;
        break;
      case "boolean":
        break;
      case "string":
        if (v.length > limits.maxStringChars || v.length > budget || v.includes("\u0000")) return false;
        budget -= v.length;
        break;
      default:
        if (v !== null) return false;
    }
  }
  return true;
}
