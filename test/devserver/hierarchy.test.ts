import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkHierarchy } from "../../src/devserver/hierarchy.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { TimeSlicer } from "../../src/devserver/time-slicer.js";

// The hierarchy check finds most parents without a map lookup (the span before, its parent, the
// span after): whatever the order of the list, it must decide exactly as the rules say.

/** The rules of spec 4.6 checked the plain way (a map for every lookup, a walk per span): the first fault, or "ok". */
function ruleOutcome(traceUuid: string, existing: StoredSpan[], added: StoredSpan[]): string {
  const stored = new Map(existing.map((s) => [s.uuid, s]));
  const position = new Map<string, number>();
  const micros = (iso: string) => Date.parse(iso) * 1000;
  for (const [i, s] of added.entries()) {
    if (position.has(s.uuid)) return `twice ${s.uuid}`;
    if (stored.has(s.uuid)) return `exists ${s.uuid}`;
    if (s.uuid === traceUuid) return `trace uuid ${s.uuid}`;
    position.set(s.uuid, i);
    if (micros(s.startTime) > micros(s.endTime)) return `ends before ${s.uuid}`;
  }
  for (const s of added) {
    if (s.parentUuid === undefined) continue;
    if (s.parentUuid === traceUuid) return `trace parent ${s.uuid}`;
    const at = position.get(s.parentUuid);
    const parent = at === undefined ? stored.get(s.parentUuid) : added[at];
    if (!parent) return `no parent ${s.uuid}`;
    if (micros(s.startTime) < micros(parent.startTime)) return `starts before ${s.uuid} ${parent.uuid}`;
  }
  for (const s of added) {
    const seen = new Set<string>();
    for (let p: StoredSpan | undefined = s; p; p = p.parentUuid === undefined ? undefined : added[position.get(p.parentUuid) ?? -1]) {
      if (seen.has(p.uuid)) return `cycle ${s.uuid}`;
      seen.add(p.uuid);
    }
  }
  return "ok";
}

/** What checkHierarchy decided, in the same words as {@link ruleOutcome}. */
async function checkOutcome(traceUuid: string, existing: StoredSpan[], added: StoredSpan[]): Promise<string> {
  try {
    await checkHierarchy(traceUuid, existing, added, "body", new TimeSlicer(0));
    return "ok";
  } catch (err) {
    const m = (err as Error).message;
    const span = /span (?:uuid )?(\S+)/.exec(m)?.[1];
    if (m.includes("appears twice")) return `twice ${span}`;
    if (m.includes("already exists")) return `exists ${span}`;
    if (m.includes("equals the trace uuid")) return `trace uuid ${span}`;
    if (m.includes("ends before it starts")) return `ends before ${span}`;
    if (m.includes("has the trace uuid as parentUuid")) return `trace parent ${span}`;
    if (m.includes("names no span")) return `no parent ${span}`;
    if (m.includes("starts before its parent")) return `starts before ${span} ${/its parent (\S+)/.exec(m)?.[1]}`;
    const cycle = /chain of span (\S+) forms a cycle/.exec(m);
    if (cycle) return `cycle ${cycle[1]}`;
    return m;
  }
}

const at = (ms: number) => new Date(Date.UTC(2026, 5, 1) + ms).toISOString();

/** A forest of spans (each parent earlier in creation), listed in start order, end order or shuffled, with faults. */
const scenario = fc
  .record({
    parents: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
    order: fc.constantFrom("start", "end", "shuffled"),
    shuffle: fc.array(fc.nat(), { maxLength: 40 }),
    stored: fc.nat({ max: 5 }),
    faults: fc.array(
      fc.record({ kind: fc.constantFrom("dup", "self", "trace", "missing", "early", "reversed", "cycle", "exists"), span: fc.nat(), other: fc.nat() }),
      { maxLength: 2 },
    ),
  })
  .map(({ parents, order, shuffle, stored, faults }) => {
    const n = parents.length;
    // Span k's parent is one of the spans before it, or none (a root, about one in five).
    const spans: StoredSpan[] = parents.map((p, k) => ({
      uuid: `s${k}`,
      startTime: at(k * 10),
      endTime: at(10_000 - k),
      ...(k > 0 && p % 5 !== 0 ? { parentUuid: `s${p % k}` } : {}),
    }));
    const existing = spans.slice(0, Math.min(stored, n - 1));
    let added = spans.slice(existing.length);
    if (order === "end") added = [...added].reverse();
    if (order === "shuffled") {
      for (const [i, r] of shuffle.entries()) {
        const a = i % added.length;
        const b = r % added.length;
        [added[a], added[b]] = [added[b]!, added[a]!];
      }
    }
    added = added.map((s) => ({ ...s }));
    for (const f of faults) {
      const s = added[f.span % added.length]!;
      const o = spans[f.other % n]!;
      if (f.kind === "dup") added.push({ ...o });
      if (f.kind === "self") s.parentUuid = s.uuid;
      if (f.kind === "trace") s.parentUuid = "trace";
      if (f.kind === "missing") s.parentUuid = "nowhere";
      if (f.kind === "early") s.startTime = at(-1);
      if (f.kind === "reversed") s.endTime = at(-5);
      if (f.kind === "cycle" && o !== s) {
        s.parentUuid = o.uuid;
        s.startTime = o.startTime;
        const back = added.find((x) => x.uuid === o.uuid);
        if (back) back.parentUuid = s.uuid;
      }
      if (f.kind === "exists" && existing.length > 0) added.push({ ...existing[0]! });
    }
    return { existing, added };
  });

describe("checkHierarchy", () => {
  it("decides as the rules do for forests in any order, faults included", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ existing, added }) => {
        expect(await checkOutcome("trace", existing, added)).toBe(ruleOutcome("trace", existing, added));
      }),
      { numRuns: 1500 },
    );
  });
});
