/** False once `setImmediate` threw: from then on every turn is a `setTimeout(fn, 0)`. */
let immediateWorks = typeof globalThis.setImmediate === "function";

/**
 * Runs `fn` on a later turn of the event loop: `setImmediate` where it works, else
 * `setTimeout(fn, 0)`. Checked by calling it, not by its type: Next.js's edge runtime defines
 * `setImmediate` as a stub that throws (issue 49), and a batch taken over several turns must not
 * stall on it.
 */
export function nextTurn(fn: () => void): void {
  if (immediateWorks) {
    try {
      setImmediate(fn);
      return;
    } catch {
      immediateWorks = false;
    }
  }
  setTimeout(fn, 0);
}
