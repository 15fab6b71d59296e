import { describe, expect, it } from "vitest";
import { BusyList } from "../../src/export/busy-list.js";
import { newTraceRecord, type TraceRecord } from "../../src/export/trace-record.js";

const rec = (i: number): TraceRecord => newTraceRecord(i.toString(16).padStart(32, "0"), 0);
const ids = (list: BusyList) => [...list].map((r) => Number.parseInt(r.traceId, 16)).sort((a, b) => a - b);

describe("BusyList: the exporter's busy records, linked through the records", () => {
  it("holds what was added and not deleted, in any order of adds and deletes, as a Set would", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const records = Array.from({ length: 64 }, (_, i) => rec(i));
    const list = new BusyList();
    const set = new Set<TraceRecord>();
    for (let step = 0; step < 5000; step++) {
      const r = records[Math.floor(random() * records.length)]!;
      if (set.has(r)) {
        list.delete(r);
        set.delete(r);
      } else {
        list.add(r);
        set.add(r);
      }
      expect(list.size).toBe(set.size);
      if (step % 97 === 0) expect(ids(list)).toEqual([...set].map((x) => Number.parseInt(x.traceId, 16)).sort((a, b) => a - b));
    }
  });

  it("lets the record being visited be deleted, and visits every other one once", () => {
    const list = new BusyList();
    for (let i = 0; i < 10; i++) list.add(rec(i));
    const seen: number[] = [];
    for (const r of list) {
      seen.push(Number.parseInt(r.traceId, 16));
      if (Number.parseInt(r.traceId, 16) % 2 === 0) list.delete(r);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ids(list)).toEqual([1, 3, 5, 7, 9]);
    expect(list.size).toBe(5);
  });

  it("unlinks a deleted record, so that it keeps no neighbour alive, and can be added again", () => {
    const list = new BusyList();
    const [a, b, c] = [rec(1), rec(2), rec(3)];
    list.add(a);
    list.add(b);
    list.add(c);
    list.delete(b);
    expect(b.busyPrev).toBeUndefined();
    expect(b.busyNext).toBeUndefined();
    expect(ids(list)).toEqual([1, 3]);
    list.delete(c);
    list.delete(a);
    expect(list.size).toBe(0);
    expect([...list]).toEqual([]);
    list.add(b);
    expect(ids(list)).toEqual([2]);
  });
});

describe("BusyList.toArray", () => {
  it("gives every record once, newest first, and is not changed by later deletes", () => {
    const list = new BusyList();
    const records = [rec(1), rec(2), rec(3)];
    for (const r of records) list.add(r);
    const arr = list.toArray();
    expect(arr).toEqual([records[2], records[1], records[0]]);
    list.delete(records[1]!);
    expect(arr).toHaveLength(3);
    expect(list.toArray()).toEqual([records[2], records[0]]);
    expect(new BusyList().toArray()).toEqual([]);
  });
});
