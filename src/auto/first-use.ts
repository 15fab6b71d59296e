type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Marks a prototype method this module patched (its value: the original). */
const ORIGINAL = Symbol.for("evaltrace.auto.original");

/**
 * Patches `methods` on a class prototype so that an instance is instrumented on its first use:
 * the first call runs `ensure(instance)` (which puts the instrumented method on the instance
 * itself, as the `wrap*` functions do) and then calls that instance method; an instance `ensure`
 * leaves alone keeps calling the original. The instrumented instance method calling through to
 * the prototype reaches the original, so nothing recurses. What the method returns and throws is
 * the original's. Patching twice is patching once.
 */
export function wrapOnFirstUse(proto: unknown, methods: readonly string[], ensure: (instance: object) => void): void {
  if (!proto || typeof proto !== "object") return;
  const target = proto as Record<string, unknown>;
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== "function" || (original as { [ORIGINAL]?: unknown })[ORIGINAL]) continue;
    const patched: Fn = function (this: unknown, ...args: unknown[]) {
      if (this !== null && typeof this === "object" && !Object.hasOwn(this, name)) {
        try {
          ensure(this);
        } catch {
          // An instance we cannot instrument runs as it is.
        }
        const own = Object.getOwnPropertyDescriptor(this, name)?.value;
        if (typeof own === "function" && own !== patched) return (own as Fn).apply(this, args);
      }
      return (original as Fn).apply(this, args);
    };
    Object.defineProperty(patched, ORIGINAL, { value: original });
    Object.defineProperty(patched, "name", { value: (original as Fn).name, configurable: true });
    Object.defineProperty(patched, "length", { value: (original as Fn).length, configurable: true });
    const own = Object.getOwnPropertyDescriptor(target, name);
    Object.defineProperty(target, name, { value: patched, writable: own?.writable ?? true, configurable: true, enumerable: own?.enumerable ?? false });
  }
}

/**
 * Puts a setter on a class prototype for fields the constructor assigns (`this.x = ...`): each
 * assignment stores the value on the instance as a plain field, as it would have been, and once
 * every one of `fields` is set, `ready(instance)` runs (it may replace them). For SDKs that
 * assign their methods per instance, where a prototype method would never be reached.
 */
export function onFieldsAssigned(proto: unknown, fields: readonly string[], ready: (instance: object) => void): void {
  if (!proto || typeof proto !== "object") return;
  for (const name of fields) {
    const existing = Object.getOwnPropertyDescriptor(proto, name);
    if (existing && !existing.configurable) return;
    if (existing?.set && (existing.set as { [ORIGINAL]?: unknown })[ORIGINAL]) continue;
    if (existing && !existing.set && existing.value !== undefined) return;
  }
  for (const name of fields) {
    const set = function (this: object, value: unknown) {
      Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
      if (fields.every((f) => Object.hasOwn(this, f))) {
        try {
          ready(this);
        } catch {
          // The instance keeps the SDK's own fields.
        }
      }
    };
    Object.defineProperty(set, ORIGINAL, { value: true });
    Object.defineProperty(proto, name, { configurable: true, enumerable: false, get: () => undefined, set });
  }
}
