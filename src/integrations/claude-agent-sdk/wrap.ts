import { context } from "@opentelemetry/api";
import { isObject, quietly } from "../kit/model-call.js";
import { reportUnexpectedClient } from "../kit/unexpected-client.js";
import { isAsyncIterable, tapPrompt } from "./prompt.js";
import { QueryRecorder } from "./recorder.js";

/** Marks a wrapped `query` (so that it is never wrapped twice), holding the original. */
const WRAPPED = Symbol.for("evaltrace.claudeAgentSdk.query");
/** Marks a Query object whose messages are already recorded (by any copy of ours). */
const OBSERVED = Symbol.for("evaltrace.claudeAgentSdk.observed");

type Fn = (this: unknown, ...args: unknown[]) => unknown;
type IterFn = (this: unknown, ...args: unknown[]) => Promise<IteratorResult<unknown>>;

/** A promise of the SDK's iterator result, watched: the very result (or error) goes on to the app. */
function watched(promise: Promise<IteratorResult<unknown>>, recorder: QueryRecorder): Promise<IteratorResult<unknown>> {
  return promise.then(
    (r) => {
      quietly(() => (r?.done === true ? recorder.done() : recorder.message(r?.value)));
      return r;
    },
    (error: unknown) => {
      recorder.fail(error);
      throw error;
    },
  );
}

/** An iterator's `next`, `return` and `throw`, each reporting to the recorder and then calling the original. */
function watchedMethods(target: { next: IterFn; return?: IterFn; throw?: IterFn }, recorder: QueryRecorder) {
  const { next, return: ret, throw: thr } = target;
  return {
    next(this: unknown, ...args: unknown[]) {
      recorder.begin();
      return watched(next.apply(this, args), recorder);
    },
    ...(typeof ret === "function"
      ? {
          return(this: unknown, ...args: unknown[]) {
            recorder.stop();
            return ret.apply(this, args);
          },
        }
      : {}),
    ...(typeof thr === "function"
      ? {
          throw(this: unknown, ...args: unknown[]) {
            recorder.fail(args[0]);
            return thr.apply(this, args);
          },
        }
      : {}),
  };
}

/**
 * Records the messages of a Query object as the app reads them, in place: the object stays the
 * SDK's own (its `interrupt()` and other methods untouched); its `next`, `return` and `throw`, and
 * the iterator `for await` takes from it, report each message to the recorder on its way out.
 */
function observeQuery(query: unknown, recorder: QueryRecorder): void {
  if (!isObject(query) || query[OBSERVED] || typeof query.next !== "function") return;
  Object.defineProperty(query, OBSERVED, { value: true });
  const own = watchedMethods(query as unknown as { next: IterFn; return?: IterFn; throw?: IterFn }, recorder);
  for (const [name, fn] of Object.entries(own)) Object.defineProperty(query, name, { value: fn, configurable: true, writable: true });
  const iterate = query[Symbol.asyncIterator];
  if (typeof iterate !== "function") return;
  Object.defineProperty(query, Symbol.asyncIterator, {
    configurable: true,
    writable: true,
    value(this: unknown) {
      const it = (iterate as Fn).call(this) as { next: IterFn; return?: IterFn; throw?: IterFn };
      // The Query is its own iterator in some versions: its methods are watched already.
      if (it === query || !isObject(it) || typeof it.next !== "function") return it;
      const methods = watchedMethods(it, recorder);
      return {
        next: (...args: unknown[]) => methods.next.apply(it, args),
        ...(methods.return ? { return: (...args: unknown[]) => methods.return!.apply(it, args) } : {}),
        ...(methods.throw ? { throw: (...args: unknown[]) => methods.throw!.apply(it, args) } : {}),
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    },
  });
}

/**
 * `query` wrapped: each call is recorded while `enabled()` says so. The wrapper returns what
 * `query` returns and throws what it throws.
 */
export function wrapQueryWhen<F extends (params: never) => unknown>(query: F, enabled: () => boolean): F {
  if (typeof query !== "function") {
    reportUnexpectedClient("wrapQuery", `it takes the Claude Agent SDK's query function, got ${query === null ? "null" : typeof query}`);
    return query;
  }
  if ((query as unknown as { [WRAPPED]?: unknown })[WRAPPED]) return query;
  const original = query as unknown as Fn;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    let recorder: QueryRecorder | undefined;
    let callArgs = args;
    try {
      if (enabled()) {
        const params = isObject(args[0]) ? args[0] : undefined;
        const prompt = params?.prompt;
        const made = new QueryRecorder(context.active(), typeof prompt === "string" ? prompt : undefined);
        if (params && isAsyncIterable(prompt)) callArgs = [{ ...params, prompt: tapPrompt(prompt, (m) => made.promptMessage(m)) }, ...args.slice(1)];
        recorder = made;
      }
    } catch {
      callArgs = args;
      recorder = undefined;
    }
    const query = original.apply(this, callArgs);
    if (recorder) {
      const made = recorder;
      quietly(() => observeQuery(query, made));
    }
    return query;
  };
  Object.defineProperty(wrapped, WRAPPED, { value: original });
  Object.defineProperty(wrapped, "name", { value: original.name, configurable: true });
  return wrapped as unknown as F;
}
