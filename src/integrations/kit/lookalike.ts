/**
 * Objects and functions that read as the SDK's own: a Proxy of an SDK object with some members
 * seen through ours (`util.inspect`, own property names, prototype and `typeof` are the
 * target's), and a function that reads as the one it stands for (name, length, prototype).
 */

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** `fn` as a function that reads as `original`: its name, its length, whether it has a prototype. */
export function lookalike(original: unknown, fn: Fn): Fn {
  const f: Fn =
    typeof original === "function" && Object.hasOwn(original, "prototype")
      ? function (this: unknown, ...args: unknown[]) {
          return fn.apply(this, args);
        }
      : // Method shorthand: no prototype, as the original has none, and still its caller's `this`.
        {
          method(this: unknown, ...args: unknown[]) {
            return fn.apply(this, args);
          },
        }.method;
  if (typeof original === "function") {
    Object.defineProperty(f, "name", { value: original.name, configurable: true });
    Object.defineProperty(f, "length", { value: original.length, configurable: true });
  }
  return f;
}

/**
 * A Proxy of `target` whose `overrides` members are read from `overrides` (each read of another
 * member is the target's, with the target as its receiver). The target is not changed.
 */
export function proxyWith<T extends object>(target: T, overrides: Record<PropertyKey, unknown>): T {
  return new Proxy(target, {
    get(t, key) {
      return Object.hasOwn(overrides, key) ? overrides[key] : Reflect.get(t, key, t);
    },
  });
}
