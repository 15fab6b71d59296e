import { HttpError } from "./http-error.js";
import type { TimeSlicer } from "./time-slicer.js";

/**
 * 400 when any object in a parsed body has a key named `__proto__` (in any JSON spelling:
 * `JSON.parse` makes it an own key). Route code copies fields with assignments and
 * `Object.assign`, where that key would set the prototype of the copy: hidden, unvalidated
 * fields that lists show and the stored record does not. Checked once here, for every route.
 * An iterative walk (bodies may be 512 deep), yielding through `slicer` on large bodies.
 */
export async function rejectProtoKeys(body: unknown, slicer: TimeSlicer): Promise<void> {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    if (slicer.due()) await slicer.yield();
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === "object") stack.push(item);
      continue;
    }
    if (Object.hasOwn(v, "__proto__")) throw new HttpError(400, `a key named "__proto__" is not accepted in a request body`);
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (item !== null && typeof item === "object") stack.push(item);
    }
  }
}
