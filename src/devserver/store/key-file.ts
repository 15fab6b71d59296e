import { closeSync, fsync, fsyncSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { checkKeysFile, openPrivate, readNoFollow, REWRITE_FLAGS, syncDir } from "./data-file.js";
import type { KeyRecord } from "./store.js";

const fsyncAsync = promisify(fsync);

/** What the keys file holds. */
interface KeysDocument {
  keys: KeyRecord[];
}

/** A write of the keys file under way: the new file and the texts it holds. */
interface Pending {
  fd: number;
  tmp: string;
  text: string;
  full: string;
}

/**
 * The API keys of a `--data` store, in a file of their own beside the journal
 * (`<data file>.keys`), so that the journal alone (copied elsewhere, attached to a bug report)
 * holds no key. The keys are stored as they are, so that the banner prints them again after a
 * restart. The file is refused as the journal is (a symbolic link, another user's file), created
 * 0600, and written whole: a new file, fsync'd, renamed over the old one.
 */
export class KeyFile {
  readonly path: string;
  /** The keys as last written or loaded, without their last use: any other change is written at once. */
  private lastText = "";
  /** The keys as last written or loaded, last use included: a use alone is written at close. */
  private lastFull = "";

  /** Checks the keys file of the journal `dataFile`, before anything is read. */
  constructor(dataFile: string) {
    this.path = `${dataFile}.keys`;
    checkKeysFile(this.path, dataFile);
  }

  /** The keys the file holds (made 0600 if it was not); undefined when there is no file. */
  load(): KeyRecord[] | undefined {
    let bytes: Buffer;
    try {
      bytes = readNoFollow(this.path, true);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    let doc: Partial<KeysDocument>;
    try {
      doc = JSON.parse(bytes.toString("utf8")) as Partial<KeysDocument>;
    } catch (err) {
      throw new Error(`${this.path}: not valid JSON (${(err as Error).message}); the keys file is damaged`);
    }
    if (!Array.isArray(doc.keys)) throw new Error(`${this.path}: holds no "keys" list; the keys file is damaged`);
    this.remember(doc.keys);
    return doc.keys;
  }

  /**
   * Writes the keys if they changed, their last use aside (it moves on every request: it is
   * written with the next real change, and at close). Resolves when the file is durable.
   */
  async save(keys: KeyRecord[]): Promise<void> {
    if (withoutUse(keys) === this.lastText) return;
    const w = this.begin(keys);
    try {
      await fsyncAsync(w.fd);
    } catch (err) {
      this.abort(w);
      throw err;
    }
    this.finish(w);
  }

  /** Writes the keys if anything of them changed, their last use included (at start and at close). */
  saveSync(keys: KeyRecord[]): void {
    if (JSON.stringify(keys) === this.lastFull) return;
    const w = this.begin(keys);
    try {
      fsyncSync(w.fd);
    } catch (err) {
      this.abort(w);
      throw err;
    }
    this.finish(w);
  }

  /**
   * Writes the whole file to a new file beside it ({@link finish} renames it over the old one
   * once fsync'd). The keys' text is taken now: a key that changes during the fsync (a request's
   * use, a rotation completing) is written the next time.
   */
  private begin(keys: KeyRecord[]): Pending {
    const w: Pending = { fd: -1, tmp: `${this.path}.new-${process.pid}`, text: withoutUse(keys), full: JSON.stringify(keys) };
    w.fd = openPrivate(w.tmp, REWRITE_FLAGS);
    try {
      writeSync(w.fd, `${JSON.stringify({ keys } satisfies KeysDocument, null, 2)}\n`);
    } catch (err) {
      this.abort(w);
      throw err;
    }
    return w;
  }

  private finish(w: Pending): void {
    closeSync(w.fd);
    renameSync(w.tmp, this.path);
    syncDir(dirname(this.path));
    this.lastText = w.text;
    this.lastFull = w.full;
  }

  /** Nothing of a write that failed stays: the new file is removed, the old one is as it was. */
  private abort(w: Pending): void {
    closeSync(w.fd);
    rmSync(w.tmp, { force: true });
  }

  private remember(keys: KeyRecord[]): void {
    this.lastText = withoutUse(keys);
    this.lastFull = JSON.stringify(keys);
  }
}

/** The keys' text without their last use, to tell a real change from a key's use. */
function withoutUse(keys: KeyRecord[]): string {
  return JSON.stringify(keys, (k, v: unknown) => (k === "lastUsed" ? undefined : v));
}
