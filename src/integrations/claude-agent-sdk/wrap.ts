import { context } from "@opentelemetry/api";
import { processWide } from "../../process-wide.js";
import { hookClassMethod } from "../kit/class-method.js";
import { isObject, quietly } from "../kit/model-call.js";
import { reportUnexpectedClient } from "../kit/unexpected-client.js";
import { isAsyncIterable, tapPrompt } from "./prompt.js";
import { QueryRecorder } from "./recorder.js";

/** Marks a wrapped `query` (so that it is never wrapped twice), holding the original. */
const WRAPPED = Symbol.for("evaltrace.claudeAgentSdk.query");

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

type Step = "next" | "return" | "throw";

/** What each iterator method reports to the recorder before the SDK's own runs (and, for `next`, after: the message). */
const steps: Record<Step, (recorder: QueryRecorder, original: Fn, self: unknown, args: unknown[]) => unknown> = {
  next(recorder, original, self, args) {
    recorder.begin();
    return watched(original.apply(self, args) as Promise<IteratorResult<unknown>>, recorder);
  },
  return(recorder, original, self, args) {
    recorder.stop();
    return original.apply(self, args);
  },
  throw(recorder, original, self, args) {
    recorder.fail(args[0]);
    return original.apply(self, args);
  },
};

/** An iterator (not the Query itself) whose `next`, `return` and `throw` report to the recorder. */
function watchedIterator(it: { next: IterFn; return?: IterFn; throw?: IterFn }, recorder: QueryRecorder): AsyncIterableIterator<unknown> {
  const watchedIt: Partial<Record<Step, (...args: unknown[]) => unknown>> = {};
  for (const step of ["next", "return", "throw"] as const) {
    const original = it[step];
    if (typeof original === "function") watchedIt[step] = (...args: unknown[]) => steps[step](recorder, original as Fn, it, args);
  }
  return {
    ...watchedIt,
    [Symbol.asyncIterator]() {
      return this;
    },
  } as AsyncIterableIterator<unknown>;
}

/** The recorder of each Query object the app reads (shared by every copy of ours: the Query class is hooked once). */
const recorders = processWide("claudeAgentSdk.queries", () => new WeakMap<object, QueryRecorder>());

const recorderOf = (self: unknown): QueryRecorder | undefined => (isObject(self) ? recorders.get(self) : undefined);

/**
 * Records the messages of a Query object as the app reads them. The object stays the SDK's own,
 * own properties included: its class's `next`, `return` and `throw`, and the iterator
 * `for await` takes from it, are hooked once and report each message of a recorded Query to its
 * recorder on its way out (the others pass through).
 */
function observeQuery(query: unknown, recorder: QueryRecorder): void {
  if (!isObject(query) || recorders.has(query) || typeof query.next !== "function") return;
  recorders.set(query, recorder);
  for (const step of ["next", "return", "throw"] as const) {
    hookClassMethod(query, step, (original) =>
      function (this: unknown, ...args: unknown[]) {
        const r = recorderOf(this);
        return r ? steps[step](r, original, this, args) : original.apply(this, args);
      },
    );
  }
  hookClassMethod(query, Symbol.asyncIterator, (iterate) =>
    function (this: unknown) {
      const it = iterate.call(this) as { next: IterFn; return?: IterFn; throw?: IterFn };
      const r = recorderOf(this);
      // The Query is its own iterator in some versions: its methods are watched already.
      if (!r || it === this || !isObject(it) || typeof it.next !== "function") return it;
      return watchedIterator(it, r);
    },
  );
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
