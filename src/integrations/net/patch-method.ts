import { type Fn, replaceMethod } from "../kit/prototype-method.js";

/** Marks a method the net patched (its value: the original). */
const NET_ORIGINAL = Symbol.for("evaltrace.net.original");

/** The object in `start`'s prototype chain (itself included) that owns `name` as a method. */
function ownerOf(start: unknown, name: string): object | undefined {
  let at: unknown = start;
  for (let depth = 0; at !== null && typeof at === "object" && depth < 20; depth++) {
    const own = Object.getOwnPropertyDescriptor(at, name);
    if (own) return typeof own.value === "function" ? (at as object) : undefined;
    at = Object.getPrototypeOf(at);
  }
  return undefined;
}

/**
 * Patches the method `name` on the prototype that defines it (found from `proto` up its chain):
 * `around(self, args, call)` runs instead and must call `call()` once, returning what it returns.
 * No instance gets an own property; the method keeps its name, length and descriptor; patching
 * twice (another copy of evaltrace included) is patching once. Never throws.
 */
export function patchPrototypeMethod(proto: unknown, name: string, around: (self: unknown, args: unknown[], call: () => unknown) => unknown): void {
  try {
    const owner = ownerOf(proto, name);
    if (!owner || (owner as Record<string, { [NET_ORIGINAL]?: unknown }>)[name]?.[NET_ORIGINAL]) return;
    replaceMethod(owner, name, (original) => {
      const patched: Fn = function (this: unknown, ...args: unknown[]) {
        return around(this, args, () => original.apply(this, args));
      };
      Object.defineProperty(patched, NET_ORIGINAL, { value: original });
      return patched;
    });
  } catch {
    // A class we cannot patch keeps its method; its requests go unrecorded by the net.
  }
}
