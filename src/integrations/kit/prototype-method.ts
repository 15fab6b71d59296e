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
