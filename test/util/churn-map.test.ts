import { describe, expect, it } from "vitest";
import { ChurnMap, ROTATE_AFTER } from "../../src/util/churn-map.js";

// ChurnMap must behave exactly like a Map (lookups, sizes, insertion order) across its
// rotations, whether the old generation is empty or still holds entries when one happens.

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function expectSame(churn: ChurnMap<string, number>, model: Map<string, number>): void {
  expect(churn.size).toBe(model.size);
  expect([...churn.keys()]).toEqual([...model.keys()]);
  expect([...churn.values()]).toEqual([...model.values()]);
}

describe("ChurnMap", () => {
  it("filled without deletions, copies each entry at most twice on average in its rotations (issue 46: the merge was quadratic)", () => {
    const Original = globalThis.Map;
    let copied = 0;
    globalThis.Map = class CountingMap<K, V> extends Original<K, V> {
      constructor(entries?: Iterable<readonly [K, V]> | null) {
        super(entries);
        if (entries) copied += this.size;
      }
    } as MapConstructor;
    try {
      const churn = new ChurnMap<string, number>();
      const n = 64 * ROTATE_AFTER;
      for (let i = 0; i < n; i++) churn.set(`k${i}`, i);
      expect(churn.size).toBe(n);
      expect(copied).toBeLessThanOrEqual(2 * n);
    } finally {
      globalThis.Map = Original;
    }
  });

  it("agrees with a Map over random operations spanning many rotations", () => {
    for (const seed of [1, 2, 3]) {
      const random = prng(seed);
      const churn = new ChurnMap<string, number>();
      const model = new Map<string, number>();
      let next = 0;
      // Keys mostly short-lived, a few long-lived: rotations happen with and without leftovers.
      for (let op = 0; op < 20 * ROTATE_AFTER; op++) {
        const r = random();
        const live = [...model.keys()];
        if (r < 0.45 || live.length === 0) {
          const key = `k${next++}`;
          churn.set(key, op);
          model.set(key, op);
        } else if (r < 0.85) {
          // Delete one of the newest or, rarely, one of the oldest.
          const key = random() < 0.9 ? live[live.length - 1 - Math.floor(random() * Math.min(8, live.length))]! : live[0]!;
          expect(churn.delete(key)).toBe(model.delete(key));
        } else if (r < 0.92) {
          const key = live[Math.floor(random() * live.length)]!;
          churn.set(key, -op);
          model.set(key, -op);
        } else {
          const key = random() < 0.5 ? live[Math.floor(random() * live.length)]! : `missing${op}`;
          expect(churn.get(key)).toBe(model.get(key));
          expect(churn.has(key)).toBe(model.has(key));
          expect(churn.delete(`never${op}`)).toBe(false);
        }
        if (op % 997 === 0) expectSame(churn, model);
      }
      expectSame(churn, model);
    }
  });

  it("keeps entries that outlive several rotations, in insertion order", () => {
    const churn = new ChurnMap<string, number>();
    churn.set("long-a", 1);
    churn.set("long-b", 2);
    for (let i = 0; i < 5 * ROTATE_AFTER; i++) {
      churn.set(`short${i}`, i);
      churn.delete(`short${i}`);
    }
    churn.set("late", 3);
    expect(churn.get("long-a")).toBe(1);
    expect(churn.get("long-b")).toBe(2);
    expect([...churn.keys()]).toEqual(["long-a", "long-b", "late"]);
    expect(churn.delete("long-a")).toBe(true);
    expect(churn.get("long-a")).toBeUndefined();
    expect(churn.size).toBe(2);
  });

  it("can be emptied and filled again, and deleted from while iterated", () => {
    const churn = new ChurnMap<number, string>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < ROTATE_AFTER + 10; i++) churn.set(i, `v${i}`);
      expect(churn.size).toBe(ROTATE_AFTER + 10);
      // As flush() does: delete what it visits.
      let seen = 0;
      for (const key of churn.keys()) {
        expect(churn.delete(key)).toBe(true);
        seen++;
      }
      expect(seen).toBe(ROTATE_AFTER + 10);
      expect(churn.size).toBe(0);
      expect([...churn.values()]).toEqual([]);
      expect(churn.get(0)).toBeUndefined();
    }
  });

  it("replaces its maps every ROTATE_AFTER insertions and when emptied (what keeps its tables young)", () => {
    const churn = new ChurnMap<number, string>();
    const inner = churn as unknown as { young: Map<number, string>; old: Map<number, string> };
    const first = inner.young;
    for (let i = 0; i < ROTATE_AFTER - 1; i++) churn.set(i, "v");
    expect(inner.young).toBe(first);
    churn.set(ROTATE_AFTER, "v");
    // The young map became the old one, and a fresh one takes new entries.
    expect(inner.old).toBe(first);
    expect(inner.young).not.toBe(first);
    const second = inner.young;
    churn.set(-1, "v");
    for (const key of [...churn.keys()]) churn.delete(key);
    expect(churn.size).toBe(0);
    expect(inner.young).not.toBe(second);
    expect(inner.young.size).toBe(0);
    // Emptied by deleting the old generation's last entry: both maps are fresh.
    for (let i = 0; i < ROTATE_AFTER; i++) churn.set(i, "v");
    const retired = inner.old;
    expect(retired.size).toBe(ROTATE_AFTER);
    for (let i = 0; i < ROTATE_AFTER; i++) churn.delete(i);
    expect(inner.old).not.toBe(retired);
    expect(inner.old.size + inner.young.size).toBe(0);
  });

  it("skips entries deleted while iterating, across a rotation that merges leftovers", () => {
    const churn = new ChurnMap<string, number>();
    churn.set("a", 1);
    churn.set("b", 2);
    churn.set("c", 3);
    for (let i = 0; i < ROTATE_AFTER; i++) churn.set(`t${i}`, i); // "a", "b", "c" left in the old map
    const seen: string[] = [];
    for (const key of churn.keys()) {
      seen.push(key);
      if (key === "a") {
        churn.delete("b");
        // A rotation with leftovers while iterating: the loop goes on over the maps it started on.
        for (let i = 0; i < ROTATE_AFTER; i++) churn.set(`u${i}`, i);
        churn.delete("c");
        churn.delete(`t${ROTATE_AFTER - 1}`);
      }
    }
    expect(seen).not.toContain("b");
    expect(seen).not.toContain("c");
    expect(seen).not.toContain(`t${ROTATE_AFTER - 1}`);
    expect(seen[0]).toBe("a");
    expect(new Set(seen).size).toBe(seen.length);
    expect([...churn.values()]).toEqual([...churn.keys()].map((k) => churn.get(k)));
  });
});
