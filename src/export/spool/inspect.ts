import { loadDisk } from "./disk.js";
import { readRecord } from "./format.js";
import { isLiveOwner, parseSegment, readLock } from "./lock.js";

/** What {@link inspectSpool} found in a spool directory. */
export interface SpoolInspection {
  /** The directory looked at. */
  dir: string;
  /** Whether it exists and could be read. */
  readable: boolean;
  /** Segment files in it. */
  files: number;
  /** Their bytes. */
  bytes: number;
  /** Traces in their readable records. */
  traces: number;
  /** Readable records (batches). */
  records: number;
  /** Damaged or truncated records (a segment being written may end in one that is not yet complete). */
  corruptRecords: number;
  /** Age of the oldest record, in milliseconds (undefined when there is none). */
  oldestRecordAgeMillis: number | undefined;
  /** Whether a live process holds a lock on the directory (it owns segments and replays them). */
  lockedByLiveProcess: boolean;
  /** The processes that hold a lock: pid, host, and whether it runs (a process of another host is taken to run). */
  owners: { pid: number; host: string; live: boolean }[];
}

/**
 * Looks at a spool directory without changing it (for `evaltrace doctor` and for tools): its
 * segments, bytes, traces, the age of the oldest record, and whether a live process holds it. A
 * spool whose oldest record keeps growing older while a live process holds it is not draining.
 * Never rejects: a directory that cannot be read is reported `readable: false`.
 */
export async function inspectSpool(dir: string, now: number = Date.now()): Promise<SpoolInspection> {
  const out: SpoolInspection = { dir, readable: false, files: 0, bytes: 0, traces: 0, records: 0, corruptRecords: 0, oldestRecordAgeMillis: undefined, lockedByLiveProcess: false, owners: [] };
  const disk = await loadDisk();
  if (disk === undefined) return out;
  let names: string[];
  try {
    names = (await disk.fs.readdir(dir)).sort();
  } catch {
    return out;
  }
  out.readable = true;
  let oldest: number | undefined;
  for (const file of names) {
    if (parseSegment(file) === undefined) continue;
    let buf: Uint8Array;
    try {
      buf = await disk.fs.readFile(disk.join(dir, file));
    } catch {
      continue;
    }
    out.files++;
    out.bytes += buf.length;
    for (let pos = 0; ; ) {
      const r = readRecord(buf, pos, disk.crc32);
      if (r.kind === "end") break;
      if (r.kind === "truncated") {
        out.corruptRecords++;
        break;
      }
      if (r.kind === "corrupt") out.corruptRecords++;
      else {
        out.records++;
        out.traces += r.header.n;
        oldest = oldest === undefined ? r.header.t : Math.min(oldest, r.header.t);
      }
      pos = r.next;
    }
  }
  for (const file of names) {
    if (!file.endsWith(".lock")) continue;
    const info = await readLock(disk, dir, file.slice(0, -".lock".length));
    if (info === undefined) continue;
    const live = isLiveOwner(disk, info);
    out.owners.push({ pid: info.pid, host: info.host, live });
    out.lockedByLiveProcess ||= live;
  }
  out.oldestRecordAgeMillis = oldest === undefined ? undefined : Math.max(0, now - oldest);
  return out;
}
