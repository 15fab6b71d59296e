import { watchApiPromise } from "../kit/api-promise-watch.js";
import { type Call, outcomeOf } from "./call.js";

/**
 * Watches the SDK's own promise without changing it or reading anything the app does not (see
 * `kit/api-promise-watch.ts`): the parsed result wherever the SDK parses it (`then`,
 * `withResponse`, and every helper's `_thenUnwrap`: its transform sees the call's own result),
 * failures on the raw response promise, and a call whose app only takes the raw `Response`
 * (`asResponse`) ends without output.
 */
export function observeCall(result: unknown, call: Call): void {
  const outcome = outcomeOf(call);
  try {
    // The app reads the body itself: the span ends with what the headers say.
    const raw = () => setTimeout(() => outcome.end({ output: "", toolCalls: [] }), 0);
    if (watchApiPromise(result, { see: outcome.see, fail: outcome.fail, raw })) return;
    if (typeof (result as { then?: unknown } | null)?.then === "function") {
      // Not the SDK's APIPromise (an older or mocked SDK): observe the settlement on the side.
      void (result as Promise<unknown>).then(outcome.see, outcome.fail);
    }
  } catch (err) {
    outcome.fail(err);
  }
}
