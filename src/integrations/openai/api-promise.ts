import { type Call, type Outcome, outcomeOf } from "./call.js";

type PromiseParts = { parseResponse?: unknown; responsePromise?: unknown; asResponse?: unknown; _thenUnwrap?: unknown };

/**
 * Watches the SDK's own promise without changing it or reading anything the app does not: the
 * parsed result is seen where the SDK parses it (`parseResponse`, used by `then`, `withResponse`
 * and, in openai 4 to 6, by every helper's `_thenUnwrap`; openai 7 gives each promise its own
 * `_thenUnwrap` that parses without it, so the helpers' transforms are watched too), failures on
 * the raw response promise, and a call whose app only takes the raw `Response` (`asResponse`)
 * ends without output.
 */
export function observeCall(result: unknown, call: Call): void {
  const outcome = outcomeOf(call);
  try {
    const p = result as PromiseParts & object;
    watchPromise(p, call, outcome);
    if (p?.responsePromise && typeof (p.responsePromise as Promise<unknown>).then === "function") {
      (p.responsePromise as Promise<unknown>).then(undefined, outcome.fail);
    }
    if (typeof p?.parseResponse !== "function" && typeof (p as { then?: unknown })?.then === "function") {
      // Not the SDK's APIPromise (an older or mocked SDK): observe the settlement on the side.
      void (p as Promise<unknown>).then(outcome.see, outcome.fail);
    }
  } catch (err) {
    outcome.fail(err);
  }
}

/**
 * Puts the watchers on one APIPromise: the call's own, or one a helper derived from it with
 * `_thenUnwrap` (its value is the helper's, so there only a failure counts: the call's own
 * result was seen by the transform).
 */
function watchPromise(p: PromiseParts & object, call: Call, outcome: Outcome): void {
  if (!p || typeof p !== "object") return;
  if (typeof p.parseResponse === "function") {
    const parseResponse = p.parseResponse as (...a: unknown[]) => unknown;
    Object.defineProperty(p, "parseResponse", {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const parsed = parseResponse.apply(this, args);
        void Promise.resolve(parsed).then(outcome.see, outcome.fail);
        return parsed;
      },
    });
  }
  if (typeof p._thenUnwrap === "function") {
    const thenUnwrap = p._thenUnwrap as (...a: unknown[]) => unknown;
    Object.defineProperty(p, "_thenUnwrap", {
      configurable: true,
      writable: true,
      value(this: unknown, transform: unknown, ...rest: unknown[]) {
        const watched =
          typeof transform === "function"
            ? function (this: unknown, data: unknown, ...more: unknown[]) {
                try {
                  outcome.see(data);
                } catch {
                  // Seeing the result never changes what the helper makes of it.
                }
                return (transform as (...a: unknown[]) => unknown).call(this, data, ...more);
              }
            : transform;
        const derived = thenUnwrap.call(this, watched, ...rest);
        try {
          watchPromise(derived as PromiseParts & object, call, outcome);
        } catch {
          // The derived promise is the SDK's as it is.
        }
        return derived;
      },
    });
  }
  if (typeof p.asResponse === "function") {
    const asResponse = p.asResponse as (...a: unknown[]) => Promise<unknown>;
    Object.defineProperty(p, "asResponse", {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const response = asResponse.apply(this, args);
        // The app reads the body itself: the span ends with what the headers say.
        void Promise.resolve(response).then(() => setTimeout(() => outcome.end({ output: "", toolCalls: [] }), 0), outcome.fail);
        return response;
      },
    });
  }
}
