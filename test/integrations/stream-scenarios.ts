import { expect } from "vitest";
import type { DevServer } from "../../src/devserver/index.js";
import type { StoredSpan, StoredTrace } from "../../src/devserver/store/store.js";
import { flush } from "../../src/index.js";

// Helpers of the stream edge-case tests of the model-SDK wrappers (issue 31): find the trace a
// call made by a marker in its input, read a stream partly, and what an llm span says.

/** The one stored trace with a span whose input holds `marker`. */
export function traceWith(dev: DevServer, marker: string): StoredTrace | undefined {
  const found = Object.values(dev.state.traces).filter((t) => t.spans.some((s) => JSON.stringify(s.input ?? null).includes(marker)));
  if (found.length > 1) throw new Error(`${found.length} traces hold ${marker}`);
  return found[0];
}

/** Waits (flushing) until the trace holding `marker` is stored; returns it. */
export async function storedTrace(dev: DevServer, marker: string): Promise<StoredTrace> {
  await expect
    .poll(async () => {
      await flush();
      return traceWith(dev, marker) !== undefined;
    })
    .toBe(true);
  return traceWith(dev, marker)!;
}

/** The llm spans of a trace, in start order. */
export const llmSpans = (t: StoredTrace): StoredSpan[] => t.spans.filter((s) => s.type === "llm").sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));

/** The spans `deliver()` or shutdown had to force-end. */
export const unfinished = (t: StoredTrace): string[] => t.spans.filter((s) => (s.metadata as Record<string, unknown> | undefined)?.["evaltrace.unfinished"]).map((s) => String(s.name));

/** Reads `stream` until `stop(n)` says so after the n-th item (then `break`s); the items read, and what it threw. */
export async function readUntil<T>(stream: AsyncIterable<T>, stop: (n: number, item: T) => boolean): Promise<{ items: T[]; threw: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) {
      items.push(item);
      if (stop(items.length, item)) break;
    }
  } catch (err) {
    return { items, threw: err };
  }
  return { items, threw: undefined };
}
