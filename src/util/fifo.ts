/** A first-in first-out queue with O(1) push and shift (Array.prototype.shift is O(n)). */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Compact once the consumed prefix dominates, keeping memory proportional to what is queued.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Removes and returns every item, in order. */
  drain(): T[] {
    const out = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return out;
  }

  /** The items in order, without removing them. */
  toArray(): T[] {
    return this.items.slice(this.head) as T[];
  }
}
