import { describe, expect, it } from "vitest";
import { Slots } from "../../src/util/slots.js";

/** A task that waits for its own release. */
function gated<T>(value: T) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const task = async () => {
    await gate;
    return value;
  };
  return { release, task };
}

describe("request slots (util/slots.ts)", () => {
  it("starts a task synchronously when a slot is free, and runs at most `concurrency` at once, the rest in order", async () => {
    const slots = new Slots(2);
    const started: number[] = [];
    const tasks = [0, 1, 2, 3].map((i) => gated(i));
    const done = tasks.map((t, i) =>
      slots.add(() => {
        started.push(i);
        return t.task();
      }),
    );
    expect(started).toEqual([0, 1]);
    expect([slots.pending, slots.size]).toEqual([2, 2]);
    tasks[1]!.release();
    expect(await done[1]).toBe(1);
    // Freed a microtask after it settled: then the next waiting task starts.
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const t of tasks) t.release();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3]);
  });

  it("rejects as the task does, and frees its slot", async () => {
    const slots = new Slots(1);
    const failed = slots.add(async () => {
      throw new Error("boom");
    });
    const next = slots.add(async () => "next");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("next");
  });

  it("onIdle resolves at once when nothing runs, else when the last task freed its slot; onFreed hears each freed slot after the next task started", async () => {
    const slots = new Slots(1);
    await slots.onIdle();
    const seen: string[] = [];
    slots.onFreed(() => seen.push(`freed: ${slots.pending} running, ${slots.size} waiting`));
    const a = gated("a");
    const b = gated("b");
    void slots.add(a.task);
    void slots.add(b.task);
    let idle = false;
    const whenIdle = slots.onIdle().then(() => {
      idle = true;
    });
    a.release();
    b.release();
    await whenIdle;
    expect(idle).toBe(true);
    expect(seen).toEqual(["freed: 1 running, 0 waiting", "freed: 0 running, 0 waiting"]);
    expect([slots.pending, slots.size]).toEqual([0, 0]);
  });
});
