import { openSlab } from "../encode/batch-body.js";
import { JsonBytes } from "../encode/json-bytes.js";

/**
 * The slabs batches are taken into (encode/batch-body.ts), kept for the next batches once a
 * request has no more use for its body. A slab is its batch's body while the request is in
 * flight, so it can only come back when the request is over: answered with success (the service
 * read the whole body) and the body handed nowhere else (no spool took it). Any other slab is left
 * to the garbage collector, as every slab was before.
 *
 * Why: a fresh buffer for each batch (grown by doubling up to a request's size, 300-600 KB) is
 * new memory the kernel maps and zeroes page by page, and external memory that hastens V8's
 * collections; kept, its pages are warm. Measured in bench/ (docs/performance.md, issue 46):
 * workload A's CPU per span about 12% lower, B's about 5%.
 */
export class SlabPool {
  private readonly kept: JsonBytes[] = [];

  constructor(
    /** Slabs kept at most: a batch being taken and one per request in flight. */
    private readonly most: number,
  ) {}

  /** A slab kept, or a new one of `bytes`, opened for a batch (`{"traces":[`). */
  take(bytes: number): JsonBytes {
    return openSlab(this.kept.pop() ?? new JsonBytes(bytes));
  }

  /** A slab nothing refers to any more (its request answered, its body nowhere else): kept unless large or enough are. */
  give(slab: JsonBytes): void {
    if (this.kept.length < this.most && slab.capacity <= MAX_KEPT_BYTES) this.kept.push(slab);
  }

  /** Slabs kept now. */
  get size(): number {
    return this.kept.length;
  }
}

/** A slab grown past this (a batch of large traces) is not kept: memory held between batches stays small. */
const MAX_KEPT_BYTES = 1024 * 1024;
