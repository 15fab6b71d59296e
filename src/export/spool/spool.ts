import type { Clock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { ExporterCounters } from "../types.js";
import { type Disk, loadDisk } from "./disk.js";
import { frameOf } from "./format.js";
import { isLiveOwner, liveTokens, lockFile, newToken, parseSegment, readLock, type SegmentName, segmentFile, takeLock } from "./lock.js";
import { countTraces, type Segment } from "./segments.js";

/** When the spool makes a write durable against a crash of the machine (a killed process loses nothing either way). */
export type SpoolFsync = "none" | "rotate" | "always";

/** The spool's options, resolved. */
export interface SpoolSettings {
  dir: string;
  maxBytes: number;
  fsync: SpoolFsync;
  /** Every batch is written before it is sent (docs/spool.md, write-ahead mode). */
  writeAhead: boolean;
}

/** What the spool counts in the exporter's counters. */
export type SpoolCounters = Pick<ExporterCounters, "tracesSpooled" | "tracesDroppedFromSpool">;

/** Largest segment file; a segment is deleted once every record of it was replayed. */
export const MAX_SEGMENT_BYTES = 8 * 1024 * 1024;

/** Bytes being written at once, at most: beyond it a batch is not taken (the queue drops, as without a spool). */
const MAX_WRITING_BYTES = 32 * 1024 * 1024;


/**
 * The disk half of the spool: an append-only directory of segment files (format.ts), owned
 * through lock.ts. `write()` appends an encoded batch (one `writev`, never re-serialized), made
 * asynchronous and one at a time; the oldest segments are dropped (counted) to stay within
 * `maxBytes`. Any disk error turns the spool off for the process with one warning: from then on
 * the exporter behaves as it does without one. Segments left by processes that are gone are
 * claimed at start and every {@link RESCAN_MILLIS}. Replaying is `replay.ts`'s.
 */
export class Spool {
  /** Segments owned, oldest first; the last one may be open for appending. */
  readonly segments: Segment[] = [];
  private readonly token = newToken();
  private disk: Disk | undefined;
  private ready: Promise<boolean> | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private failed = false;
  private readFailed = false;
  private closed = false;
  private seq = 0;
  private writing = 0;
  private lastScan = 0;
  private readonly segmentBytes: number;
  /** Called when segments were claimed: there is something to replay. */
  onClaimed: () => void = () => {};

  constructor(
    readonly settings: SpoolSettings,
    private readonly counters: SpoolCounters,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.segmentBytes = Math.max(64 * 1024, Math.min(MAX_SEGMENT_BYTES, Math.floor(settings.maxBytes / 4)));
  }

  /** Loads the file system, makes the directory, takes this process's lock, claims orphans. Once. */
  start(): Promise<boolean> {
    this.ready ??= this.init();
    return this.ready;
  }

  /** Whether it still takes batches at all: not failed, not closed (it may be busy: {@link accepting}). */
  get open(): boolean {
    return !this.failed && !this.closed;
  }

  /** Whether a batch handed to {@link write} now may be taken (not failed, not closed, not too much being written). */
  get accepting(): boolean {
    return !this.failed && !this.closed && this.writing < MAX_WRITING_BYTES;
  }

  /** Traces in the owned segments awaiting replay (not those written ahead of a request in flight). */
  get traces(): number {
    let n = 0;
    for (const s of this.segments) if (s.inFlight !== true) n += s.traces;
    return n;
  }

  /** Traces written ahead of their request, in flight now. */
  get tracesWrittenAhead(): number {
    let n = 0;
    for (const s of this.segments) if (s.inFlight === true) n += s.traces;
    return n;
  }

  /** Whether any segment awaits replay (segments written ahead of a request in flight do not). */
  get replayable(): boolean {
    return this.segments.some((s) => s.inFlight !== true);
  }

  /** Bytes of the owned segments. */
  get bytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.bytes;
    return n;
  }

  /**
   * The file system for reading, once started (undefined before, where there is none, or once
   * reading failed). A spool whose writes failed (a full disk) still replays what it holds.
   */
  get diskOrUndefined(): Disk | undefined {
    return this.readFailed ? undefined : this.disk;
  }

  /** Reading failed (the directory is gone): nothing more is replayed by this process. */
  failReads(err: unknown): void {
    this.readFailed = true;
    this.fail(err);
  }

  /**
   * Appends an encoded batch of `traces` traces, first sent (or to be sent) with `key`. Resolves
   * true once written, false when it was not (the spool failed or is closed): the caller then
   * counts the batch as it would without a spool. Never rejects. A body already `held` in memory
   * (a request that failed: their number is bounded by the requests in flight) is taken while the
   * spool is open, busy or not: refusing it would lose it and free nothing the queue could use.
   */
  write(body: Uint8Array, traces: number, key: string, held = false): Promise<boolean> {
    if (held ? !this.open : !this.accepting) return Promise.resolve(false);
    this.writing += body.length;
    const done = this.chain.then(async () => {
      try {
        if (!(await this.start()) || this.failed || this.closed) return false;
        await this.append(body, traces, key);
        this.counters.tracesSpooled += traces;
        return true;
      } catch (err) {
        this.fail(err);
        return false;
      } finally {
        this.writing -= body.length;
      }
    });
    this.chain = done;
    return done;
  }

  /**
   * Write-ahead: writes a batch about to be sent, `key` its request's `Idempotency-Key`, to a
   * segment file of its own, marked in flight. Resolves with that segment once written, or
   * undefined when it was not (the spool failed, is closed or too busy: the batch is sent all the
   * same, as without write-ahead). Never rejects. Then {@link answered} or {@link keep}.
   */
  writeAhead(body: Uint8Array, traces: number, key: string): Promise<Segment | undefined> {
    if (!this.accepting) return Promise.resolve(undefined);
    this.writing += body.length;
    const done = this.chain.then(async () => {
      try {
        if (!(await this.start()) || this.failed || this.closed) return undefined;
        return await this.appendAlone(body, traces, key);
      } catch (err) {
        this.fail(err);
        return undefined;
      } finally {
        this.writing -= body.length;
      }
    });
    this.chain = done;
    return done;
  }

  /** The service answered the request of a batch written ahead (took it, or refused it for good): its file goes. */
  async answered(seg: Segment): Promise<void> {
    if (seg.dropped || !this.segments.includes(seg)) return;
    await this.remove(seg);
  }

  /**
   * The request of a batch written ahead failed for want of the service: the segment is spooled
   * as it is (its record carries the request's key), counted, forced to the device unless fsync
   * is "none", and replayed like any other. Resolves false when it is no longer there (the spool
   * failed, or the directory is gone): the caller then counts the batch as without a spool.
   */
  keep(seg: Segment): Promise<boolean> {
    const done = this.chain.then(async () => {
      if (seg.dropped || !this.segments.includes(seg) || this.readFailed) return false;
      try {
        if (this.settings.fsync !== "none") {
          const handle = await this.disk!.fs.open(this.path(seg.file), "r");
          try {
            await handle.datasync();
          } finally {
            await handle.close();
          }
        }
      } catch (err) {
        // Gone (the directory deleted), or cannot be read: it cannot be replayed.
        this.failReads(err);
        return false;
      }
      seg.inFlight = false;
      this.counters.tracesSpooled += seg.traces;
      return true;
    });
    this.chain = done;
    return done;
  }

  /**
   * Closes the segment being appended to, so that it can be replayed (the next write opens a new
   * one). Runs in the write chain.
   */
  seal(): Promise<void> {
    const done = this.chain.then(() => this.closeOpen().catch((err: unknown) => this.fail(err)));
    this.chain = done;
    return done;
  }

  /** Deletes a segment whose records were all replayed (or dropped). */
  async remove(seg: Segment): Promise<void> {
    const at = this.segments.indexOf(seg);
    if (at >= 0) this.segments.splice(at, 1);
    try {
      await seg.handle?.close();
      seg.handle = undefined;
      await this.disk?.fs.unlink(this.path(seg.file));
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") this.failReads(err);
    }
  }

  /** Claims the segments of processes that are gone, at most every {@link RESCAN_MILLIS}. */
  async rescan(force = false): Promise<void> {
    if (this.readFailed || this.closed || this.disk === undefined) return;
    const now = this.clock.now();
    if (!force && now - this.lastScan < RESCAN_MILLIS) return;
    this.lastScan = now;
    try {
      if (await this.claimOrphans(this.disk)) this.onClaimed();
    } catch (err) {
      this.failReads(err);
    }
  }

  /** Closes the open segment (fsync'd unless the policy is "none") and lets go of the lock. */
  close(): Promise<void> {
    if (this.closed) return this.chain.then(() => undefined);
    this.closed = true;
    const done = this.chain.then(async () => {
      try {
        await this.closeOpen();
      } catch {
        // The process is going away; what is on disk stays claimable.
      }
      try {
        // Segments left behind have no owner now: the next process with this directory claims
        // them. The lock goes even when the spool failed, if the file is still ours.
        if (this.disk !== undefined && this.ready !== undefined) await this.releaseLock(this.disk);
      } catch {
        // Left behind: the next process of this host removes it (its pid runs no more).
      } finally {
        liveTokens.delete(this.token);
      }
    });
    this.chain = done;
    return done;
  }

  /** Turns the spool off for the process: one warning, the exporter goes on as without it. */
  fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    const code = (err as { code?: string }).code;
    this.logger.warn(
      `spool: disk error in ${this.settings.dir} (${code ?? String(err)}); spooling is off for this process, batches the service cannot take are dropped and counted as without a spool`,
    );
    for (const s of this.segments) {
      void s.handle?.close().catch(() => {});
      s.handle = undefined;
    }
  }

  private path(file: string): string {
    return this.disk!.join(this.settings.dir, file);
  }

  private async init(): Promise<boolean> {
    const disk = await loadDisk();
    if (disk === undefined) {
      this.failed = true;
      this.logger.warn("spool: this runtime has no file system (node:fs); the spool is off and batches the service cannot take are dropped and counted");
      return false;
    }
    this.disk = disk;
    try {
      await disk.fs.mkdir(this.settings.dir, { recursive: true, mode: 0o700 });
      await checkPrivateDir(disk, this.settings.dir);
      await takeLock(disk, this.settings.dir, this.token, this.clock.now());
      liveTokens.add(this.token);
      this.lastScan = this.clock.now();
      if (await this.claimOrphans(disk)) this.onClaimed();
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  /** Renames every segment whose owner is gone to this process's token; true when any was claimed. */
  private async claimOrphans(disk: Disk): Promise<boolean> {
    const all = await disk.fs.readdir(this.settings.dir);
    const files = all.filter((f) => parseSegment(f) !== undefined).sort();
    const owners = new Map<string, boolean>();
    let claimed = false;
    for (const file of files) {
      const name = parseSegment(file)!;
      if (name.owner === this.token) continue;
      let live = owners.get(name.owner);
      if (live === undefined) {
        live = liveTokens.has(name.owner) || isLiveOwner(disk, await readLock(disk, this.settings.dir, name.owner));
        owners.set(name.owner, live);
      }
      if (live) continue;
      const mine = { ...name, owner: this.token };
      try {
        // Succeeds for one claimer only.
        await disk.fs.rename(this.path(file), this.path(segmentFile(mine)));
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") continue;
        throw err;
      }
      const { bytes, traces } = await countTraces(disk, this.path(segmentFile(mine)));
      this.insert({ name: mine, file: segmentFile(mine), bytes, traces, replayedTo: 0, dropped: false });
      claimed = true;
    }
    // The locks of owners that are gone: nothing of theirs is left to claim.
    for (const [owner, live] of owners) if (!live) await disk.fs.unlink(this.path(lockFile(owner))).catch(() => {});
    await this.removeDeadLocks(disk, all, owners);
    return claimed;
  }

  /**
   * Removes the locks of processes of this host that run no more and owned no segment: every
   * process takes a lock at start, and one killed with nothing spooled would leave it forever.
   * A lock that cannot be read (being written, or torn) and locks of other hosts are left alone.
   */
  private async removeDeadLocks(disk: Disk, files: readonly string[], seen: ReadonlyMap<string, boolean>): Promise<void> {
    for (const file of files) {
      if (!file.endsWith(".lock")) continue;
      const owner = file.slice(0, -".lock".length);
      if (owner === this.token || seen.has(owner) || liveTokens.has(owner)) continue;
      const info = await readLock(disk, this.settings.dir, owner);
      if (info === undefined || info.token !== owner || isLiveOwner(disk, info)) continue;
      await disk.fs.unlink(this.path(file)).catch(() => {});
    }
  }

  /** Removes this process's lock, if the file is still ours. */
  private async releaseLock(disk: Disk): Promise<void> {
    const info = await readLock(disk, this.settings.dir, this.token);
    if (info?.token === this.token && info.pid === disk.pid) await disk.fs.unlink(this.path(lockFile(this.token)));
  }

  /**
   * Keeps `segments` oldest first (a claimed segment may be older than ours), the segment being
   * written always last: appends go to it, and close() closes it.
   */
  private insert(seg: Segment): void {
    let at = this.segments.length;
    if (at > 0 && this.segments[at - 1]!.handle !== undefined) at--;
    while (at > 0 && this.segments[at - 1]!.file > seg.file) at--;
    this.segments.splice(at, 0, seg);
  }

  private async append(body: Uint8Array, traces: number, key: string): Promise<void> {
    const disk = this.disk!;
    const head = frameOf({ k: key, n: traces, t: this.clock.now() }, body, disk.crc32);
    const size = head.length + body.length;
    let seg = this.segments[this.segments.length - 1];
    if (seg?.handle !== undefined && seg.bytes > 0 && seg.bytes + size > this.segmentBytes) {
      await this.closeOpen();
      seg = undefined;
    }
    await this.makeRoom(size);
    if (seg?.handle !== undefined) await this.checkStillThere(disk, seg);
    if (seg?.handle === undefined) seg = await this.openSegment(disk);
    const { bytesWritten } = await seg.handle!.writev([head, body]);
    // A short write is how a full disk (or a file-size limit) first shows: the record is torn.
    if (bytesWritten !== size) throw Object.assign(new Error(`short write: ${bytesWritten} of ${size} bytes`), { code: "ENOSPC" });
    seg.bytes += size;
    seg.traces += traces;
    if (this.settings.fsync === "always") await seg.handle!.datasync();
  }

  /** A batch written ahead: a segment file of its own, one record, closed at once (forced only with fsync "always"). */
  private async appendAlone(body: Uint8Array, traces: number, key: string): Promise<Segment> {
    const disk = this.disk!;
    const head = frameOf({ k: key, n: traces, t: this.clock.now() }, body, disk.crc32);
    const size = head.length + body.length;
    await this.makeRoom(size);
    const name = this.nextName();
    const file = segmentFile(name);
    const handle = await disk.fs.open(this.path(file), "wx", SEGMENT_MODE);
    const seg: Segment = { name, file, bytes: 0, traces: 0, replayedTo: 0, dropped: false, inFlight: true };
    try {
      // In the list from the start: should writing fail, the file is still deleted with the rest.
      this.insert(seg);
      const { bytesWritten } = await handle.writev([head, body]);
      if (bytesWritten !== size) throw Object.assign(new Error(`short write: ${bytesWritten} of ${size} bytes`), { code: "ENOSPC" });
      if (this.settings.fsync === "always") await handle.datasync();
    } finally {
      await handle.close();
    }
    seg.bytes = size;
    seg.traces = traces;
    return seg;
  }

  /** Drops the oldest segments (counted) until `size` more bytes fit within maxBytes; batches in flight are not spooled yet, and stay. */
  private async makeRoom(size: number): Promise<void> {
    let total = this.bytes;
    for (;;) {
      const oldest = this.segments.find((s) => s.inFlight !== true);
      if (total + size <= this.settings.maxBytes || oldest === undefined) break;
      // The open segment goes too when it alone is too large: its file is started anew.
      oldest.dropped = true;
      total -= oldest.bytes;
      this.counters.tracesDroppedFromSpool += oldest.traces;
      const n = this.counters.tracesDroppedFromSpool;
      this.logger.warn(`spool: ${oldest.traces} trace(s) dropped from the spool to stay within maxBytes=${this.settings.maxBytes} (${n} so far); stats().tracesDroppedFromSpool counts them`);
      await this.remove(oldest);
    }
  }

  /**
   * Whether the open segment is still in the directory: a write into a file unlinked under us (the
   * directory deleted) would succeed and go nowhere. What it held is lost: counted.
   */
  private async checkStillThere(disk: Disk, seg: Segment): Promise<void> {
    try {
      await disk.fs.stat(this.path(seg.file));
    } catch (err) {
      for (const s of this.segments) this.counters.tracesDroppedFromSpool += s.traces;
      for (const s of this.segments) s.traces = 0;
      throw err;
    }
  }

  /** The name of a new segment of this process: its time and a sequence number make it sort by age. */
  private nextName(): SegmentName {
    const time = this.clock.now().toString(36).padStart(9, "0");
    return { time, seq: (this.seq++ % 36 ** 6).toString(36).padStart(6, "0"), origin: this.token, owner: this.token };
  }

  private async openSegment(disk: Disk): Promise<Segment> {
    const name = this.nextName();
    const file = segmentFile(name);
    const handle = await disk.fs.open(this.path(file), "a", SEGMENT_MODE);
    const seg: Segment = { name, file, bytes: 0, traces: 0, handle, replayedTo: 0, dropped: false };
    this.segments.push(seg);
    return seg;
  }

  private async closeOpen(): Promise<void> {
    const seg = this.segments[this.segments.length - 1];
    const handle = seg?.handle;
    if (handle === undefined) return;
    seg!.handle = undefined;
    try {
      if (this.settings.fsync !== "none") await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}

/** Mode of segment and lock files: they hold whole trace bodies and the API key they are replayed with. */
const SEGMENT_MODE = 0o600;

/**
 * Refuses a spool directory other users can write (group or world, sticky or not): a segment
 * planted there would be claimed as an orphan and replayed to the service with this app's key.
 * Not on Windows, whose modes say nothing of that.
 */
async function checkPrivateDir(disk: Disk, dir: string): Promise<void> {
  if ((globalThis as { process?: { platform?: string } }).process?.platform === "win32") return;
  const mode = (await disk.fs.stat(dir)).mode;
  if ((mode & 0o022) !== 0) {
    throw new Error(`other users can write the spool directory (mode ${(mode & 0o7777).toString(8)}); a segment planted there would be replayed with this app's key (chmod go-w, or use another directory)`);
  }
}

/** How often segments of processes that are gone are looked for, while this process spools. */
export const RESCAN_MILLIS = 10_000;

