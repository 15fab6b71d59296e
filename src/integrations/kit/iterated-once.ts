import { quietly } from "./model-call.js";
import { type Fn, replaceMethod } from "./prototype-method.js";

/**
 * Sees the first read of one stream object without changing the object: the method that every
 * way of reading it calls (`[Symbol.asyncIterator]`, and for the Stainless SDKs' `Stream` also
 * `tee()`) is wrapped once on the SDK's class prototype, and a stream handed to
 * {@link whenIterated} gets its iterator through `tap` the first time it is read. Streams of
 * clients evaltrace does not trace pass straight through. The app's objects keep their own
 * properties exactly (`util.inspect`, `Object.getOwnPropertyNames` are the SDK's).
 */

type Tap = (it: AsyncIterator<unknown>) => AsyncIterator<unknown>;

// Streams waiting for their first read, and the prototypes already wrapped (by this copy of evaltrace).
const pending = new WeakMap<object, Tap>();
const wrapped = new WeakSet<object>();

/** The prototypes no SDK owns: never wrapped (every async iterable of the process shares them). */
function builtIn(proto: object): boolean {
  const asyncIteratorProto = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()));
  return proto === Object.prototype || proto === asyncIteratorProto || proto === Object.getPrototypeOf(asyncIteratorProto);
}

/** The prototype in `obj`'s chain (not `obj` itself) that owns `key`, unless built in. */
function inheritedOwner(obj: object, key: PropertyKey): object | undefined {
  for (let p = Object.getPrototypeOf(obj) as object | null; p; p = Object.getPrototypeOf(p) as object | null) {
    if (Object.hasOwn(p, key)) return builtIn(p) ? undefined : p;
  }
  return undefined;
}

/** The prototype that `obj` reads `key` from, unless `obj` owns it or the owner is built in. */
function ownerOf(obj: object, key: PropertyKey): object | undefined {
  return Object.hasOwn(obj, key) ? undefined : inheritedOwner(obj, key);
}

function take(stream: unknown): Tap | undefined {
  if (stream === null || typeof stream !== "object") return undefined;
  const tap = pending.get(stream);
  if (tap) pending.delete(stream);
  return tap;
}

function wrapPrototype(proto: object): void {
  if (wrapped.has(proto)) return;
  wrapped.add(proto);
  replaceMethod(proto, Symbol.asyncIterator, (original) =>
    function (this: unknown, ...args: unknown[]) {
      const it = original.apply(this, args) as AsyncIterator<unknown>;
      const tap = take(this);
      if (!tap) return it;
      let out = it;
      quietly(() => (out = tap(it)));
      return out;
    },
  );
  // openai's `tee()` reads the stream's own `iterator` field, not `[Symbol.asyncIterator]`: for
  // that one synchronous call the field gives the tapped iterator, and is then put back as it was.
  replaceMethod(proto, "tee", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const self = this as Record<string, unknown> | null;
      const field = self && typeof self === "object" ? Object.getOwnPropertyDescriptor(self, "iterator") : undefined;
      if (!self || !pending.has(self) || !field || typeof field.value !== "function" || !field.writable) return original.apply(this, args);
      const tap = take(self)!;
      const own = field.value as Fn;
      self.iterator = function (this: unknown, ...a: unknown[]) {
        const it = own.apply(this, a) as AsyncIterator<unknown>;
        let out = it;
        quietly(() => (out = tap(it)));
        return out;
      };
      try {
        return original.apply(this, args);
      } finally {
        Object.defineProperty(self, "iterator", field);
      }
    },
  );
}

// Streams whose class was hooked before the SDK made their iterator their own property (openai 7
// binds the class's method into a chunk-normalizing generator of the stream's own): that own
// generator reads through the hooked method, so such a stream is seen as any other.
const hookedBefore = new WeakSet<object>();

/**
 * Hooks the class of `stream` now, while its iterator is still its class's (called where the SDK
 * has just parsed it, before its own code handles it: `openai/wrap.ts`), so that an own iterator
 * the SDK makes later from the class's method reads through the hook. Never throws.
 */
export function watchStreamClass(stream: unknown): void {
  quietly(() => {
    if (stream === null || typeof stream !== "object" || Object.hasOwn(stream, Symbol.asyncIterator)) return;
    const proto = ownerOf(stream, Symbol.asyncIterator);
    if (!proto) return;
    wrapPrototype(proto);
    const teeOwner = ownerOf(stream, "tee");
    if (teeOwner && teeOwner !== proto) wrapPrototype(teeOwner);
    hookedBefore.add(stream);
  });
}

/**
 * Has the first iterator of `stream` (an instance of an SDK class whose prototype reads it)
 * go through `tap`. False when the stream cannot be seen without changing it (its iterator is its
 * own property, not made from the hooked class's method after {@link watchStreamClass}, or only
 * built-in prototypes read it): then it is left alone.
 */
export function whenIterated(stream: object, tap: Tap): boolean {
  try {
    if (Object.hasOwn(stream, Symbol.asyncIterator) && !hookedBefore.has(stream)) return false;
    const proto = inheritedOwner(stream, Symbol.asyncIterator);
    if (!proto) return false;
    wrapPrototype(proto);
    const teeOwner = ownerOf(stream, "tee");
    if (teeOwner && teeOwner !== proto) wrapPrototype(teeOwner);
    pending.set(stream, tap);
    return true;
  } catch {
    return false;
  }
}
