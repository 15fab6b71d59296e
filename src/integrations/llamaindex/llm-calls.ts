import { AsyncLocalStorage } from "node:async_hooks";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { quietly } from "../kit/model-call.js";

/**
 * LlamaIndex tells its listeners when a model call starts and ends (`llm-start`, `llm-end`) but
 * not when it fails: a failing call just never ends. So each LLM the integration sees (the one
 * on `Settings`, an agent's, any that dispatched an `llm-start`) has its `chat` and `complete`
 * wrapped on the instance: the call runs with a token in the async context, the `llm-start`
 * listener hands its span to the token, and a call that throws or rejects fails that span.
 * What the methods return and throw is unchanged.
 */

/** One call of a watched LLM: the span its `llm-start` opened, or the error that came first. */
interface CallToken {
  span?: ManualSpan;
  failed?: { error: unknown };
}

const calls = new AsyncLocalStorage<CallToken>();

/** Marks an instance whose methods are watched (any copy of evaltrace). */
const WATCHED = Symbol.for("evaltrace.llamaindex.watched");

const METHODS = ["chat", "complete"] as const;

type Method = (this: unknown, ...args: unknown[]) => unknown;

function fail(token: CallToken, error: unknown): void {
  if (token.span) token.span.fail(error);
  else token.failed = { error };
}

/** Wraps `chat` and `complete` of an LLM instance, once. Never throws. */
export function watchLlm(llm: unknown): void {
  if (llm === null || typeof llm !== "object") return;
  quietly(() => {
    const target = llm as Record<PropertyKey, unknown>;
    if (target[WATCHED] || !Object.isExtensible(target)) return;
    Object.defineProperty(target, WATCHED, { value: true });
    for (const name of METHODS) {
      const original = target[name];
      if (typeof original !== "function") continue;
      const watched: Method = function (this: unknown, ...args: unknown[]) {
        const token: CallToken = {};
        let result: unknown;
        try {
          result = calls.run(token, () => (original as Method).apply(this, args));
        } catch (err) {
          fail(token, err);
          throw err;
        }
        if (result instanceof Promise) result.then(undefined, (err: unknown) => fail(token, err));
        return result;
      };
      Object.defineProperty(target, name, { value: watched, writable: true, configurable: true, enumerable: false });
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
