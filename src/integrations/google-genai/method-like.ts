import type { Fn } from "../kit/prototype-method.js";

/**
 * A stand-in for a class method that reads as it: a function calling `run` with the call's
 * receiver and arguments, with a `prototype` only where `original` has one (a class's methods,
 * async or not, have none; `replaceMethod` gives it the original's name and length).
 */
export function methodLike(original: Fn, run: (this: unknown, args: unknown[]) => unknown): Fn {
  return Object.hasOwn(original, "prototype")
    ? function (this: unknown, ...args: unknown[]) {
        return run.call(this, args);
      }
    : {
        method(this: unknown, ...args: unknown[]) {
          return run.call(this, args);
        },
      }.method;
}
