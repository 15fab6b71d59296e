import { quietly } from "../kit/model-call.js";

/**
 * A streamed prompt (`query({ prompt: asyncIterable })`, the SDK's streaming input mode) seen on
 * its way to the SDK: the same messages, in the same order, each shown to `seen` as the SDK takes
 * it; `return` and `throw` reach the app's iterator as they would have.
 */
export function tapPrompt(prompt: AsyncIterable<unknown>, seen: (message: unknown) => void): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]() {
      const it = prompt[Symbol.asyncIterator]();
      const tapped: AsyncIterator<unknown> = {
        next: (...args: [] | [unknown]) =>
          it.next(...args).then((r) => {
            if (r.done !== true) quietly(() => seen(r.value));
            return r;
          }),
      };
      if (typeof it.return === "function") tapped.return = (value?: unknown) => it.return!(value);
      if (typeof it.throw === "function") tapped.throw = (error?: unknown) => it.throw!(error);
      return tapped;
    },
  };
}

/** Whether `v` is an async iterable (a streamed prompt), not a string. */
export const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === "object" && v !== null && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
