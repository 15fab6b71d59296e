/**
 * A `Map` for entries that come and go quickly (a record per trace while it is being sent),
 * kept as two generations of plain maps that are replaced as entries come in.
 *
 * Why not one long-lived `Map`: V8 keeps a map's entries in a table it replaces when the map
 * grows, shrinks or fills with deleted entries, and the table it replaced still points at the
 * entries it held (and at the next table). Once a table of a long-lived map has been promoted to
 * the old generation, every minor GC until the next full one treats what it points at as alive:
 * entries long deleted, and everything they reach, are copied and then promoted. Measured on
 * workload B (one-span traces, the map filled and emptied once per chunk of 1,000): 11 MB
 * promoted per 60,000 traces against 2.7 MB with the map replaced, and minor GC pauses twice as
 * long. Here no map lives for more than about {@link ROTATE_AFTER} insertions (or as many as the
 * entries it still holds), or past the moment it empties, so its tables die young with the entries.
 *
 * Values cannot be `undefined` (a lookup tells absence by it). Iteration visits the older
 * generation first, so entries come in insertion order. An entry deleted while iterating is not
 * visited after its deletion, as with a `Map`; unlike a `Map`, one added while iterating may be
 * missed (a rotation may have moved the iteration's maps aside).
 */
export class ChurnMap<K, V extends NonNullable<unknown> | null> {
  /** Entries added since the last rotation. */
  private young = new Map<K, V>();
  /** Entries of earlier generations still present (most are deleted before a rotation). */
  private old = new Map<K, V>();
  /** Insertions of new keys since the last rotation. */
  private added = 0;

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    return value !== undefined || this.old.size === 0 ? value : this.old.get(key);
  }

  has(key: K): boolean {
    return this.young.has(key) || (this.old.size > 0 && this.old.has(key));
  }

  set(key: K, value: V): void {
    if (this.old.size > 0 && this.old.has(key)) {
      this.old.set(key, value);
      return;
    }
    const before = this.young.size;
    this.young.set(key, value);
    // Every ROTATE_AFTER insertions, or, while the old generation holds more entries than that
    // (traces queued faster than they are sent), once as many were added as it holds: a rotation
    // copies the old entries, and so each is copied about twice in all, not once per rotation.
    if (this.young.size > before && ++this.added >= Math.max(ROTATE_AFTER, this.old.size)) this.rotate();
  }

  delete(key: K): boolean {
    if (!this.young.delete(key) && !(this.old.size > 0 && this.old.delete(key))) return false;
    // Empty, whichever generation held the last entry: fresh maps, so that no table of these
    // outlives its entries.
    if (this.young.size === 0 && this.old.size === 0) {
      this.young = new Map();
      this.old = new Map();
      this.added = 0;
    }
    return true;
  }

  /** Keys in insertion order (those deleted meanwhile skipped). */
  *keys(): IterableIterator<K> {
    const { old, young } = this;
    // A map still in use skips what is deleted from it by itself; one set aside meanwhile (a
    // rotation, an emptying) is read against the maps now in use.
    for (const key of old.keys()) if (this.inUse(old) || this.has(key)) yield key;
    for (const key of young.keys()) if (this.inUse(young) || this.has(key)) yield key;
  }

  /** The keys now, in insertion order, as a list (no iteration kept open: cheaper than {@link keys} to take them all). */
  keyList(): K[] {
    const out: K[] = [];
    for (const key of this.old.keys()) out.push(key);
    for (const key of this.young.keys()) out.push(key);
    return out;
  }

  /** Values in insertion order (those of keys deleted meanwhile skipped). */
  *values(): IterableIterator<V> {
    for (const key of this.keys()) yield this.get(key) as V;
  }

  private inUse(map: Map<K, V>): boolean {
    return map === this.young || map === this.old;
  }

  /**
   * Starts a new young generation. The entries still in the old one (usually none: they were
   * deleted meanwhile) go first into a new map, ahead of the young ones, keeping the order.
   * Neither retired map is changed afterwards: an iteration in progress goes on over the maps it
   * started on, skipping what was deleted since.
   */
  private rotate(): void {
    this.added = 0;
    if (this.old.size === 0) {
      this.old = this.young;
    } else {
      const merged = new Map(this.old);
      for (const [key, value] of this.young) merged.set(key, value);
      this.old = merged;
    }
    this.young = new Map();
  }
}

/** Insertions after which the young generation becomes the old one. */
export const ROTATE_AFTER = 1024;
