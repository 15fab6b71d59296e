import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readFileSync, statSync } from "node:fs";
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
/** Mode of every file the journal writes: it holds the API keys and every trace. */
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
  let f: ReturnType<typeof lstatSync>;
  try {
    f = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (f.isSymbolicLink()) throw new Error(`cannot use --data ${file}: it is a symbolic link, which is not followed; name the file itself`);
  const uid = process.getuid?.();
  if (uid !== undefined && f.uid !== uid) throw new Error(`cannot use --data ${file}: it belongs to another user (uid ${f.uid})`);
}

/** Opens a journal file with `flags` and makes it 0600 (a journal an earlier version left 0644 included). */
export function openPrivate(file: string, flags: number): number {
  const fd = openSync(file, flags, FILE_MODE);
  if (POSIX && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
  return fd;
}

/** The whole file, read without following a symbolic link. */
export function readNoFollow(file: string): Buffer {
  const fd = openSync(file, READ_FLAGS);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
