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
function ownerOf(obj: object, key: PropertyKey): object | undefined {
  if (Object.hasOwn(obj, key)) return undefined;
  for (let p = Object.getPrototypeOf(obj) as object | null; p; p = Object.getPrototypeOf(p) as object | null) {
    if (Object.hasOwn(p, key)) return builtIn(p) ? undefined : p;
  }
  return undefined;
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

/**
 * Has the first iterator of `stream` (an instance of an SDK class whose prototype reads it)
 * go through `tap`. False when the stream cannot be seen that way (its iterator is its own
 * property, or only built-in prototypes read it): then it is left alone.
 */
export function whenIterated(stream: object, tap: Tap): boolean {
  try {
    if (Object.hasOwn(stream, Symbol.asyncIterator)) return whenOwnIterated(stream, tap);
    const proto = ownerOf(stream, Symbol.asyncIterator);
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

/**
 * A stream whose `[Symbol.asyncIterator]` the SDK made its own before returning it (openai 7
 * normalizes chat completion chunks that way, over the class's method it bound beforehand): its
 * first read is seen through a look-alike of that function, an async generator function of the
 * same name with the same property attributes, so the stream reads and prints as the SDK made it.
 */
function whenOwnIterated(stream: object, tap: Tap): boolean {
  const d = Object.getOwnPropertyDescriptor(stream, Symbol.asyncIterator);
  // Only an async generator function has a look-alike that prints the same.
  if (!d || Object.prototype.toString.call(d.value) !== "[object AsyncGeneratorFunction]" || !(d.writable || d.configurable)) return false;
  const original = d.value as Fn;
  const name = original.name;
  const lookalike = {
    async *[name](this: unknown, ...args: unknown[]) {
      const it = original.apply(this, args) as AsyncIterator<unknown>;
      const own = take(this);
      let out = it;
      if (own) quietly(() => (out = own(it)));
      yield* { [Symbol.asyncIterator]: () => out };
    },
  }[name]!;
  // `tee()` reads the stream's own `iterator` field: watched on the class as for any stream.
  const teeOwner = ownerOf(stream, "tee");
  if (teeOwner) wrapPrototype(teeOwner);
  pending.set(stream, tap);
  Object.defineProperty(stream, Symbol.asyncIterator, { ...d, value: lookalike });
  return true;
}
