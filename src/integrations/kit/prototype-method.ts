/** A function as the kit calls it: any receiver, any arguments. */
export type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Replaces `proto[key]` with `make(original)`, keeping the property's attributes and the
 * function's `name` and `length`, so that the class reads as the SDK made it. Does nothing
 * when `proto` has no such configurable method.
 */
export function replaceMethod(proto: object, key: PropertyKey, make: (original: Fn) => Fn): void {
  const d = Object.getOwnPropertyDescriptor(proto, key);
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const original = d.value as Fn;
  const next = make(original);
  Object.defineProperty(next, "name", { value: original.name, configurable: true });
  Object.defineProperty(next, "length", { value: original.length, configurable: true });
  Object.defineProperty(proto, key, { ...d, value: next });
}

/**
 * Replaces the method `key` where `start`'s prototype chain (`start` included) defines it, with
 * {@link replaceMethod}, once per `marker` for the process (every copy of evaltrace): a method
 * already replaced under that marker is left as it is. Returns whether the method is now replaced
 * (false: no such method, or not configurable). No instance gets an own property. Never throws.
 */
export function replaceInheritedMethod(start: unknown, key: PropertyKey, marker: string, make: (original: Fn) => Fn): boolean {
  try {
    const mark = Symbol.for(`evaltrace.${marker}`);
    let owner: unknown = start;
    for (let depth = 0; owner !== null && (typeof owner === "object" || typeof owner === "function") && depth < 20; depth++) {
      if (Object.hasOwn(owner as object, key)) break;
      owner = Object.getPrototypeOf(owner);
    }
    if (owner === null || (typeof owner !== "object" && typeof owner !== "function")) return false;
    const current = Object.getOwnPropertyDescriptor(owner, key)?.value as { [mark]?: unknown } | undefined;
    if (typeof current !== "function") return false;
    if (current[mark]) return true;
    let done = false;
    replaceMethod(owner as object, key, (original) => {
      const next = make(original);
      Object.defineProperty(next, mark, { value: original });
      done = true;
      return next;
    });
    return done;
  } catch {
    return false;
  }
}
