import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** `O_NOFOLLOW` where the platform has it (not on Windows). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const POSIX = process.platform !== "win32";

/** Flags of the journal's append handle: never through a symbolic link, created 0600. */
export const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;
/** Flags of the journal's read handle. */
export const READ_FLAGS = constants.O_RDONLY | NOFOLLOW;
/** Flags of a compaction's new file (renamed over the journal). */
export const REWRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW;
/** Mode of every file the journal writes: it holds every trace, its keys file the API keys. */
export const FILE_MODE = 0o600;

/**
 * Refuses a `--data` file that would be unsafe to trust or to write, before anything is read:
 * a symbolic link (not followed: it could point anywhere the user can write), a file another
 * user owns, or a file in a directory other users can write without the sticky bit (they could
 * swap in a journal of their own, with keys and traces the emulator would serve). A
 * sticky directory such as `/tmp` is fine: others cannot replace what is ours there.
 */
export function checkDataFile(file: string): void {
  if (!POSIX) return;
  const dir = dirname(file);
  const d = statSync(dir);
  if ((d.mode & 0o022) !== 0 && (d.mode & 0o1000) === 0) {
    throw new Error(`cannot use --data ${file}: other users can write its directory ${dir} (mode ${(d.mode & 0o7777).toString(8)}); use a directory only you can write (chmod go-w)`);
  }
  checkOwnFile(file, `cannot use --data ${file}: it`, "name the file itself");
}

/**
 * Refuses the keys file beside a `--data` journal as {@link checkDataFile} refuses the journal
 * (its directory is the journal's, checked with it): a symbolic link, or a file another user owns.
 */
export function checkKeysFile(file: string, dataFile: string): void {
  if (!POSIX) return;
  checkOwnFile(file, `cannot use --data ${dataFile}: its keys file ${file}`, "remove it, or put the file itself there");
}

/** Throws when `file` is a symbolic link or belongs to another user; `what` starts the message. */
function checkOwnFile(file: string, what: string, fix: string): void {
  let f: ReturnType<typeof lstatSync>;
  try {
    f = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (f.isSymbolicLink()) throw new Error(`${what} is a symbolic link, which is not followed; ${fix}`);
  const uid = process.getuid?.();
  if (uid !== undefined && f.uid !== uid) throw new Error(`${what} belongs to another user (uid ${f.uid})`);
}

/** Opens a journal file with `flags` and makes it 0600 (a journal an earlier version left 0644 included). */
export function openPrivate(file: string, flags: number): number {
  const fd = openSync(file, flags, FILE_MODE);
  if (POSIX && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
  return fd;
}

/** The whole file, read without following a symbolic link (`tighten`: made 0600 if it was not). */
export function readNoFollow(file: string, tighten = false): Buffer {
  const fd = tighten ? openPrivate(file, READ_FLAGS) : openSync(file, READ_FLAGS);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename durable; some platforms cannot open a directory, and then it is skipped. */
export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here (e.g. Windows): the rename is as durable as the platform makes it.
  }
}
