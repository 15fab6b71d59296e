import type { FileHandle } from "node:fs/promises";
import type { Disk } from "./disk.js";
import { readRecord } from "./format.js";
import type { SegmentName } from "./lock.js";

/** A segment this process owns: written by it, or claimed from a process that is gone. */
export interface Segment {
  name: SegmentName;
  file: string;
  bytes: number;
  /** Traces in its records not yet replayed. */
  traces: number;
  /** Open while this process appends to it. */
  handle?: FileHandle | undefined;
  /** Offset up to which its records were replayed (acknowledged, or skipped as damaged). */
  replayedTo: number;
  /** Dropped to stay within maxBytes: whatever still reads it stops. */
  dropped: boolean;
  /**
   * Written ahead (write-ahead mode): one batch whose request is in flight. Not replayed, not
   * dropped for room and not counted as spooled while set; deleted once the service answered,
   * else cleared (the batch is spooled). A process killed meanwhile leaves it to the next.
   */
  inFlight?: boolean;
}

/** Counts the traces of a segment's readable records (a claimed segment's worth, for `stats()` and maxBytes). */
export async function countTraces(disk: Disk, path: string): Promise<{ bytes: number; traces: number }> {
  const buf = await disk.fs.readFile(path);
  let traces = 0;
  for (let pos = 0; ; ) {
    const r = readRecord(buf, pos, disk.crc32);
    if (r.kind === "record") traces += r.header.n;
    if (r.kind === "record" || r.kind === "corrupt") pos = r.next;
    else break;
  }
  return { bytes: buf.length, traces };
}
