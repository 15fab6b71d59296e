import { processWide } from "../../process-wide.js";
import type { Fn } from "./prototype-method.js";

/** Per class object, the keys already hooked (by any copy of evaltrace). */
const hooked = processWide("kit.classMethods", () => new WeakMap<object, Set<PropertyKey>>());

/** The object of `start`'s prototype chain (`start` included) that holds `name`, when it holds it as a method. */
export function methodHolder(start: unknown, name: PropertyKey): Record<PropertyKey, unknown> | undefined {
  let at: unknown = start;
  for (let depth = 0; at !== null && typeof at === "object" && depth < 20; depth++) {
    const own = Object.getOwnPropertyDescriptor(at, name);
    if (own) return typeof own.value === "function" ? (at as Record<PropertyKey, unknown>) : undefined;
    at = Object.getPrototypeOf(at);
  }
  return undefined;
}

/** The object of `obj`'s prototype chain, never `obj` itself, that defines `key` as a replaceable method. */
function methodOwner(obj: object, key: PropertyKey): object | undefined {
  for (let o = Object.getPrototypeOf(obj) as object | null; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, key);
    if (d) return typeof d.value === "function" && d.configurable && d.writable ? o : undefined;
  }
  return undefined;
}

/**
 * Hooks the method `key` of the class `obj` is an instance of, so that `obj` itself keeps its own
 * properties as the SDK made them: the object of its prototype chain that defines the method gets
 * `make(original)` in its place, once per class and key for the whole process (every copy of
 * evaltrace). The hook runs for every instance: it looks its instance up (a process-wide
 * WeakMap of the caller's) and calls `original` for the others. The replacement reads as the
 * original: name, length, property attributes, and a `prototype` only where the original has one.
 * Returns false when `obj`'s `key` is its own property or not a method that can be replaced.
 */
export function hookClassMethod(obj: object, key: PropertyKey, make: (original: Fn) => Fn): boolean {
  const owner = methodOwner(obj, key);
  return owner ? hookMethodOn(owner, key, make) : false;
}

/**
 * {@link hookClassMethod} on a class's prototype (or any object that defines `key` itself), when
 * the class is at hand before any instance is. Returns false when `owner`'s own `key` is not a
 * method that can be replaced.
 */
export function hookMethodOn(owner: object, key: PropertyKey, make: (original: Fn) => Fn): boolean {
  const d = Object.getOwnPropertyDescriptor(owner, key);
  if (!d || typeof d.value !== "function" || !d.configurable || !d.writable) return false;
  const keys = hooked.get(owner) ?? new Set<PropertyKey>();
  if (keys.has(key)) return true;
  const original = d.value as Fn;
  const impl = make(original);
  const next: Fn = Object.hasOwn(original, "prototype")
    ? function (this: unknown, ...args: unknown[]) {
        return impl.apply(this, args);
      }
    : {
        method(this: unknown, ...args: unknown[]) {
          return impl.apply(this, args);
        },
      }.method;
  Object.defineProperty(next, "name", { value: original.name, configurable: true });
  Object.defineProperty(next, "length", { value: original.length, configurable: true });
  Object.defineProperty(owner, key, { ...d, value: next });
  keys.add(key);
  hooked.set(owner, keys);
  return true;
}
