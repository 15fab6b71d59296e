import type { Runtime } from "../runtime.js";
import { describeError, type JsonValue, toJsonValue } from "./serialize.js";

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
