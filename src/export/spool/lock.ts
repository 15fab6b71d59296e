import type { Disk } from "./disk.js";

/**
 * Who owns which segment. Each process that spools takes a lock file of its own,
 * `<token>.lock`, created with O_EXCL (it holds `{pid, host, token, at}`), before it writes a
 * segment; every segment's name ends with its owner's token, and only the owner writes, replays
 * or deletes it. A segment whose owner is gone (no lock, or a lock of a process of this host that
 * no longer runs, or of this very pid with another token: a restarted container) is claimed by
 * renaming it to the claimer's token: a rename succeeds once, so two processes never replay the
 * same file. A lock of another host is never taken over (a directory per host).
 */

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  token: string;
  /** When the lock was taken, epoch milliseconds. */
  at: number;
}

/** A segment's name: `<time>-<seq>-<origin>@<owner>.seg`. */
export interface SegmentName {
  /** Epoch milliseconds of its first record, base 36, fixed width: names sort by age. */
  time: string;
  seq: string;
  /** The token of the process that wrote it. */
  origin: string;
  /** The token of the process that owns it now. */
  owner: string;
}

const SEGMENT = /^([0-9a-z]{9})-([0-9a-z]{6})-([0-9a-z]+)@([0-9a-z]+)\.seg$/;

/** A new random process token. */
export function newToken(): string {
  let t = "";
  while (t.length < 12) t += Math.floor(Math.random() * 36 ** 6).toString(36).padStart(6, "0");
  return t.slice(0, 12);
}

/** The name of a segment. */
export function segmentFile(s: SegmentName): string {
  return `${s.time}-${s.seq}-${s.origin}@${s.owner}.seg`;
}

/** A segment's parts, or undefined for any other file. */
export function parseSegment(file: string): SegmentName | undefined {
  const m = SEGMENT.exec(file);
  return m ? { time: m[1]!, seq: m[2]!, origin: m[3]!, owner: m[4]! } : undefined;
}

/** The lock file of a token. */
export function lockFile(token: string): string {
  return `${token}.lock`;
}

/** Creates this process's lock (O_EXCL: fails if it exists). */
export async function takeLock(disk: Disk, dir: string, token: string, now: number): Promise<void> {
  const info: LockInfo = { pid: disk.pid, host: disk.hostname, token, at: now };
  await disk.fs.writeFile(disk.join(dir, lockFile(token)), JSON.stringify(info), { flag: "wx", mode: 0o600 });
}

/** Reads a lock; undefined when there is none or it cannot be read as one. */
export async function readLock(disk: Disk, dir: string, token: string): Promise<LockInfo | undefined> {
  try {
    const info = JSON.parse(await disk.fs.readFile(disk.join(dir, lockFile(token)), "utf8")) as Partial<LockInfo>;
    if (typeof info.pid === "number" && typeof info.host === "string" && typeof info.token === "string") return info as LockInfo;
  } catch {
    // Missing or torn: no live owner wrote it.
  }
  return undefined;
}

/** Tokens of the spools of this process (one per runtime a `configure()` made): their segments are not orphans. */
export const liveTokens: Set<string> = new Set();

/** Whether the owner of a lock runs now: a process of another host is taken to run. */
export function isLiveOwner(disk: Disk, info: LockInfo | undefined): boolean {
  if (info === undefined) return false;
  if (liveTokens.has(info.token)) return true;
  if (info.host !== disk.hostname) return true;
  // This pid with a token it does not hold: an earlier process that had the same pid (a restarted container).
  if (info.pid === disk.pid) return false;
  return disk.isAlive(info.pid);
}
