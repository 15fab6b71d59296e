import { AsyncLocalStorage } from "node:async_hooks";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { processWide } from "../../process-wide.js";
import { quietly } from "../kit/model-call.js";
import { lookalike } from "../kit/lookalike.js";
import { type Fn, replaceMethod } from "../kit/prototype-method.js";

/**
 * LlamaIndex tells its listeners when a model call starts and ends (`llm-start`, `llm-end`) but
 * not when it fails: a failing call just never ends. So each LLM the integration sees (the one
 * on `Settings`, an agent's, any that dispatched an `llm-start`) has its `chat` and `complete`
 * watched (see watchLlm): the call of a watched instance runs with a token in the async context, the `llm-start`
 * listener hands its span to the token, and a call that throws or rejects fails that span.
 * What the methods return and throw is unchanged.
 */

/** One call of a watched LLM: the span its `llm-start` opened, or the error that came first. */
interface CallToken {
  span?: ManualSpan;
  failed?: { error: unknown };
}

const calls = new AsyncLocalStorage<CallToken>();

const METHODS = ["chat", "complete"] as const;

function fail(token: CallToken, error: unknown): void {
  if (token.span) token.span.fail(error);
  else token.failed = { error };
}

/** The instances whose calls are watched, and per method the classes whose method watches them (any copy of evaltrace). */
const watched = processWide("llamaindex.watchedLlms", () => ({ instances: new WeakSet<object>(), classes: { chat: new WeakSet<object>(), complete: new WeakSet<object>() } }));

/** The object of `llm`'s prototype chain (not `llm` itself) that defines the method `name`, if it can be replaced. */
function methodOwner(llm: object, name: string): object | undefined {
  for (let o: object | null = Object.getPrototypeOf(llm) as object | null; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return typeof d.value === "function" && d.configurable ? o : undefined;
  }
  return undefined;
}

/** `original` run with a token when its receiver (or, bound, `llm`) is a watched instance. */
function watching(original: Fn, llm?: object): Fn {
  // A method (no `prototype` of its own), as the LLM classes' are.
  const replaced = {
    watched(this: unknown, ...args: unknown[]) {
      const self = llm ?? this;
      if (self === null || typeof self !== "object" || !watched.instances.has(self)) return original.apply(this, args);
      const token: CallToken = {};
      let result: unknown;
      try {
        result = calls.run(token, () => original.apply(this, args));
      } catch (err) {
        fail(token, err);
        throw err;
      }
      if (result instanceof Promise) result.then(undefined, (err: unknown) => fail(token, err));
      return result;
    },
  };
  return replaced.watched;
}

/**
 * Watches `chat` and `complete` of an LLM instance. A method of its class is wrapped on the class,
 * once, and watches only the watched instances. LlamaIndex's decorators also give each instance
 * its own bound copy of `chat`: that own copy is replaced by a look-alike (same name, length and
 * property attributes), so the instance reads as before (`util.inspect`, own property names), as
 * kit/lookalike.ts does for the SDKs' own members. Never throws.
 */
export function watchLlm(llm: unknown): void {
  if (llm === null || typeof llm !== "object") return;
  quietly(() => {
    if (watched.instances.has(llm) || !Object.isExtensible(llm)) return;
    watched.instances.add(llm);
    for (const name of METHODS) {
      const own = Object.getOwnPropertyDescriptor(llm, name);
      if (own) {
        if (typeof own.value === "function" && own.configurable) Object.defineProperty(llm, name, { ...own, value: lookalike(own.value, watching(own.value as Fn, llm)) });
        continue;
      }
      const owner = methodOwner(llm, name);
      if (!owner || watched.classes[name].has(owner)) continue;
      watched.classes[name].add(owner);
      replaceMethod(owner, name, (original) => watching(original));
    }
  });
}

/**
 * The span of an `llm-start` joins the watched call it belongs to (the innermost one in the
 * async context not claimed yet). A call that failed before its `llm-start` was heard fails it now.
 */
export function joinCall(span: ManualSpan): void {
  const token = calls.getStore();
  if (!token || token.span) return;
  token.span = span;
  if (token.failed) span.fail(token.failed.error);
}
