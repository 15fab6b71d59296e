import { isoMicros } from "../protocol/schema.js";
import { badRequest, conflict } from "./http-error.js";
import type { StoredSpan } from "./store/store.js";
import type { TimeSlicer } from "./time-slicer.js";

/**
 * The hierarchy rules of spec 4.6 over a trace's existing and new spans: `parentUuid` names a
 * span of the same trace, never the trace uuid; a child starts no earlier than its parent; no
 * span ends before it starts; no cycles; no span uuid twice. Linear in the number of spans (each
 * span is walked once by the cycle check), in slices of event-loop time. Resolves to the number of
 * parent links the cycle check followed (at most one per new span), which tests use to check
 * that the work grows linearly.
 */
export async function checkHierarchy(traceUuid: string, existing: readonly StoredSpan[], added: readonly StoredSpan[], path: string, slicer: TimeSlicer): Promise<number> {
  let steps = 0;
  const stored = new Map<string, StoredSpan>();
  for (const s of existing) {
    stored.set(s.uuid, s);
    if (slicer.due()) await slicer.yield();
  }
  /** Position of each new span in `added`. */
  const position = new Map<string, number>();
  const startMicros = new Float64Array(added.length);
  for (let i = 0; i < added.length; i++) {
    const s = added[i]!;
    // One map operation for the common case: a uuid seen before leaves the size unchanged.
    position.set(s.uuid, i);
    if (position.size === i) throw conflict(`${path}: span uuid ${s.uuid} appears twice`);
    if (stored.size > 0 && stored.has(s.uuid)) throw conflict(`${path}: span ${s.uuid} already exists in trace ${traceUuid}; existing spans cannot be updated (spec 3.2)`);
    if (s.uuid === traceUuid) throw badRequest(`${path}: span uuid ${s.uuid} equals the trace uuid`);
    startMicros[i] = isoMicros(s.startTime);
    if (startMicros[i]! > isoMicros(s.endTime)) throw badRequest(`${path}: span ${s.uuid} ends before it starts`);
    if (slicer.due()) await slicer.yield();
  }
  /** Position of each new span's parent among the new spans; -1 for a root or a stored parent. */
  const parentAt = new Int32Array(added.length).fill(-1);
  for (let i = 0; i < added.length; i++) {
    const s = added[i]!;
    if (s.parentUuid !== undefined) {
      if (s.parentUuid === traceUuid) {
        throw badRequest(`${path}: span ${s.uuid} has the trace uuid as parentUuid; parentUuid is a span uuid and root spans carry none (spec 4.6 rules 2-3)`);
      }
      const at = guessParent(added, parentAt, i, s.parentUuid) ?? position.get(s.parentUuid);
      const parent = at === undefined ? stored.get(s.parentUuid) : added[at];
      if (!parent) throw badRequest(`${path}: span ${s.uuid} has parentUuid ${s.parentUuid}, which names no span of trace ${traceUuid} (spec 4.6 rule 1)`);
      const parentStart = at === undefined ? isoMicros(parent.startTime) : startMicros[at]!;
      if (startMicros[i]! < parentStart) throw badRequest(`${path}: span ${s.uuid} starts before its parent ${parent.uuid} (spec 4.6 rule 4)`);
      if (at !== undefined) parentAt[i] = at;
    }
    if (slicer.due()) await slicer.yield();
  }
  // Cycles: stored spans form none, so only chains through new spans are walked, each new span
  // once: 1 = on the chain being walked, 2 = known to reach a root or a stored span.
  const mark = new Uint8Array(added.length);
  const chain: number[] = [];
  for (let i = 0; i < added.length; i++) {
    for (let p = i; p !== -1; p = parentAt[p]!) {
      if (mark[p] === 2) break;
      if (mark[p] === 1) throw badRequest(`${path}: the parentUuid chain of span ${added[i]!.uuid} forms a cycle`);
      mark[p] = 1;
      chain.push(p);
      steps++;
    }
    for (const p of chain) mark[p] = 2;
    chain.length = 0;
    if (slicer.due()) await slicer.yield();
  }
  return steps;
}

/**
 * The position of span `i`'s parent among the new spans when it sits where a list in start order
 * (the span before, or the parent of the span before) or in end order (the span after) puts it;
 * undefined otherwise. Saves a lookup in a map of every span for most spans of a large trace.
 */
function guessParent(added: readonly StoredSpan[], parentAt: Int32Array, i: number, parentUuid: string): number | undefined {
  if (i > 0) {
    if (added[i - 1]!.uuid === parentUuid) return i - 1;
    const uncle = parentAt[i - 1]!;
    if (uncle !== -1 && added[uncle]!.uuid === parentUuid) return uncle;
  }
  if (i + 1 < added.length && added[i + 1]!.uuid === parentUuid) return i + 1;
  return undefined;
}
