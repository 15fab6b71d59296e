import { currentRuntime } from "../../runtime/configure.js";
import { reportInternalError } from "../../util/internal-errors.js";

/**
 * Reports that a `wrap*` / `instrument*` function met an object without what it instruments (the
 * wrong object passed, or an SDK version of another shape): counted in `stats().internalErrors`
 * and logged naming the wrapper and what was missing, at the 1st, 10th, 100th time. The object is
 * returned to the app unchanged by the caller; nothing throws.
 *
 * @param wrapper - The public function, e.g. `wrapOpenAI`.
 * @param problem - What is wrong with the object, e.g. `the client has no messages.create`.
 */
export function reportUnexpectedClient(wrapper: string, problem: string): void {
  reportInternalError(wrapper, new TypeError(`${problem}; it is returned unchanged and not traced`), currentRuntime()?.logger);
}

/** Reports a failure while wrapping (a frozen object, a proxy that refuses); the object is returned unchanged. */
export function reportWrapFailure(wrapper: string, error: unknown): void {
  reportInternalError(wrapper, error, currentRuntime()?.logger);
}
