import { quietly } from "./model-call.js";
import { type Fn, replaceInheritedMethod, replaceMethod } from "./prototype-method.js";

/**
 * Watches the calls of the Stainless SDKs (`openai`, `@anthropic-ai/sdk`) through their
 * `APIPromise` class, never through the promise object the app holds: the class's `parse`,
 * `_thenUnwrap` and `asResponse` are wrapped once on its prototype, and every parse of a traced
 * call's response is seen, whichever promise runs it. A call is known by its response props (the
 * object its `responsePromise` resolves to), which the SDK's helpers pass on unchanged when they
 * build promises of their own on a call (`_thenUnwrap`, anthropic's message threads and tool
 * runners): a stream one of them parses is seen as well as one the app's own promise parses.
 * The class is hooked before the first call of a wrapped client ({@link watchApiPromisesOf}, at
 * wrap time; {@link watchApiPromiseClass}, when zero-code sees the package load), so that the SDK's
 * own code, inside the first call, already goes through the hooks as it does in every later call.
 */

/** What a watched call is told. Each may be called more than once: the watcher keeps the first. */
export interface CallWatch {
  /** A parse of the response gave `value` (the reply, or a stream not yet read). */
  see(value: unknown): void;
  /** The request, or a parse of its response, failed. */
  fail(err: unknown): void;
  /** The app is about to get the raw `Response` (`asResponse()`) with no parse begun; must not read its body. */
  raw(response: unknown): void;
}

type PromiseLike = { responsePromise?: unknown; parsedPromise?: unknown };

const byProps = new WeakMap<object, CallWatch>();
const wrapped = new WeakSet<object>();
const noop = () => undefined;

const isThenable = (v: unknown): v is Promise<unknown> => v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function";

/** The watch of the call whose response props are `props`. */
const watchOf = (props: unknown): CallWatch | undefined => (props !== null && typeof props === "object" ? byProps.get(props) : undefined);

/** The props `p`'s response promise resolves to, once it has (a holder filled in before the SDK's own handlers run). */
function propsOf(p: PromiseLike): { props?: unknown } {
  const holder: { props?: unknown } = {};
  if (isThenable(p.responsePromise))
    p.responsePromise.then((props) => {
      holder.props = props;
    }, noop);
  return holder;
}

// The promises whose parse is already watched (`parse()` caches its promise).
const parsing = new WeakSet<object>();

function wrapPrototype(proto: object): void {
  if (wrapped.has(proto)) return;
  wrapped.add(proto);
  replaceMethod(proto, "parse", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const self = this as PromiseLike;
      if (!self || typeof self !== "object" || parsing.has(self) || !isThenable(self.responsePromise)) return original.apply(this, args);
      parsing.add(self);
      // Before the SDK's own handlers: the props are known when the parse settles.
      const holder = propsOf(self);
      const parsed = original.apply(this, args);
      if (isThenable(parsed))
        parsed.then(
          (value) => quietly(() => watchOf(holder.props)?.see(value)),
          (err: unknown) => quietly(() => watchOf(holder.props)?.fail(err)),
        );
      return parsed;
    },
  );
  replaceMethod(proto, "_thenUnwrap", (original) =>
    function (this: unknown, transform: unknown, ...rest: unknown[]) {
      if (typeof transform !== "function") return original.call(this, transform, ...rest);
      // The helper's transform gets the call's own parsed value, and its props: seen before it is transformed.
      const watched = function (this: unknown, data: unknown, props: unknown, ...more: unknown[]) {
        quietly(() => watchOf(props)?.see(data));
        return (transform as Fn).call(this, data, props, ...more);
      };
      return original.call(this, watched, ...rest);
    },
  );
  replaceMethod(proto, "asResponse", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const self = this as PromiseLike;
      if (!self || typeof self !== "object" || self.parsedPromise !== undefined || !isThenable(self.responsePromise)) return original.apply(this, args);
      const holder = propsOf(self);
      const response = original.apply(this, args);
      if (!isThenable(response)) return response;
      // Told before the app holds the Response (so that a watcher may clone its body), unless a
      // parse has begun (`withResponse()` parses too): the app reads the body itself.
      return response.then((r) => {
        if (self.parsedPromise === undefined) quietly(() => watchOf(holder.props)?.raw(r));
        return r;
      });
    },
  );
}

/** The prototype in `p`'s chain that owns `parse` (the SDK's APIPromise class). */
function apiPromiseProto(p: object): object | undefined {
  for (let proto = Object.getPrototypeOf(p) as object | null; proto && proto !== Promise.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    if (Object.hasOwn(proto, "parse")) return proto;
  }
  return undefined;
}

/**
 * Watches the call `p` (the SDK's APIPromise) with `watch`: its failure, and each parse of its
 * response. False when `p` is not an APIPromise we know (the caller then watches it as a plain
 * promise). Never throws; `p` is left as it is.
 */
export function watchApiPromise(p: unknown, watch: CallWatch): boolean {
  try {
    if (p === null || typeof p !== "object") return false;
    const self = p as PromiseLike;
    const proto = apiPromiseProto(p);
    if (!proto || !isThenable(self.responsePromise) || Object.hasOwn(p, "parse")) return false;
    wrapPrototype(proto);
    // Registered at the call, before anything else reads the props: every later parse finds the watch.
    self.responsePromise.then(
      (props) => {
        if (props !== null && typeof props === "object") byProps.set(props, watch);
      },
      (err: unknown) => quietly(() => watch.fail(err)),
    );
    return true;
  } catch {
    return false;
  }
}

/** Hooks the SDK's `APIPromise` class (as the package exports it) now. Never throws. */
export function watchApiPromiseClass(cls: unknown): void {
  quietly(() => {
    const proto = typeof cls === "function" ? (cls.prototype as unknown) : undefined;
    if (proto && typeof proto === "object" && Object.hasOwn(proto, "parse")) wrapPrototype(proto);
  });
}

/**
 * Hooks the `APIPromise` class of a Stainless client class (`proto`: a client, or its class's
 * prototype) before the SDK's own code handles its first promise: the class's `request` (which
 * every call goes through, and which makes the call's APIPromise) is replaced once on the
 * prototype that defines it, and hooks the class of the first promise it returns, before it is
 * returned. Nothing is added to the client. Never throws.
 */
export function watchApiPromisesOf(proto: unknown): void {
  let hooked = false;
  replaceInheritedMethod(proto, "request", "kit.apiPromiseClass", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const p = original.apply(this, args);
      if (!hooked)
        quietly(() => {
          const found = p !== null && typeof p === "object" ? apiPromiseProto(p) : undefined;
          if (!found) return;
          wrapPrototype(found);
          hooked = true;
        });
      return p;
    },
  );
}
