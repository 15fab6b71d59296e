/**
 * Next.js prerendering (Cache Components): a server component that calls a model without
 * `await connection()` is prerendered, and once the prerender is complete Next aborts the
 * request it started (the SDK then fails, "Request timed out." or "Connection error."). The model
 * never received that call and the page is rendered again for the visitor: the trace of such a
 * failed call is dropped, not sent ERRORED (counted in `stats().tracesAbortedByPrerender`).
 *
 * Next keeps the render's work unit in an AsyncLocalStorage on `globalThis` under
 * `Symbol.for("@next/work-unit-async-storage@<next version>")`; its store's `type` is
 * `prerender…` while prerendering, with a `renderSignal` aborted once the prerender is complete.
 */

const PREFIX = "@next/work-unit-async-storage@";

interface StoreLike {
  getStore(): unknown;
}

let storage: StoreLike | undefined;

/** Next's work-unit storage, looked up on `globalThis` (kept once found: Next makes one per process). */
function workUnitStorage(): StoreLike | undefined {
  if (storage !== undefined) return storage;
  for (const key of Object.getOwnPropertySymbols(globalThis)) {
    if (!key.description?.startsWith(PREFIX)) continue;
    const value = (globalThis as Record<symbol, unknown>)[key] as StoreLike | undefined;
    if (value && typeof value.getStore === "function") return (storage = value);
  }
  return undefined;
}

/**
 * Whether the code running now is a Next.js prerender that has completed (its render signal
 * aborted): a model call failing here was aborted by Next. Read only when a model call fails.
 * Never throws.
 */
export function inAbortedNextPrerender(): boolean {
  try {
    const store = workUnitStorage()?.getStore() as { type?: unknown; renderSignal?: { aborted?: unknown } } | undefined;
    if (!store || typeof store.type !== "string" || !store.type.startsWith("prerender")) return false;
    return store.renderSignal?.aborted !== false;
  } catch {
    return false;
  }
}
