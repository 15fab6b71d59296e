import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import { inspectSpool } from "../export/spool/inspect.js";
import type { SpoolInspector } from "./types.js";

/**
 * A spool directory the spool cannot use at all: the spool turns itself off at its first write
 * (one warning), so batches the service cannot take are dropped. The message names the cause.
 */
export class UnusableSpoolDirError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = "UnusableSpoolDirError";
  }
}

/** The nearest existing ancestor of `dir` that is not a directory, if any (for ENOTDIR). */
async function fileOnThePath(dir: string): Promise<string | undefined> {
  for (let at = dirname(dir); at !== dirname(at); at = dirname(at)) {
    const found = await stat(at).then(
      (s) => s,
      () => undefined,
    );
    if (found) return found.isDirectory() ? undefined : at;
  }
  return undefined;
}

/**
 * The inspector `doctor()` uses when it is given none: the disk spool's own `inspectSpool`, read
 * as the spool check needs it. A directory not made yet is an empty spool (the spool makes it on
 * its first write). A path that is a file, or lies under one, or cannot be read, is an error
 * naming the cause.
 */
export const defaultSpoolInspector: SpoolInspector = async (dir) => {
  const found = await inspectSpool(dir);
  if (!found.readable) {
    const info = await stat(dir).then(
      (s) => ({ isDir: s.isDirectory(), code: undefined as string | undefined }),
      (error: NodeJS.ErrnoException) => ({ isDir: false, code: error.code }),
    );
    if (info.code === "ENOENT") return { bytes: 0, traces: 0, oldestAgeMs: null, lockedByLivePid: null };
    if (info.code === undefined && !info.isDir) {
      throw new UnusableSpoolDirError(`the spool path ${dir} is a file, not a directory: spooling will be off`, `point EVALTRACE_SPOOL_DIR (or spool.dir) at a directory, or move the file ${dir} away`);
    }
    if (info.code === "ENOTDIR") {
      const file = await fileOnThePath(dir);
      throw new UnusableSpoolDirError(
        `the spool path ${dir} lies under ${file ?? "a file"}, which is not a directory (ENOTDIR): spooling will be off`,
        "point EVALTRACE_SPOOL_DIR (or spool.dir) at a directory whose parents are directories",
      );
    }
    if (info.code === "EACCES" || info.code === "EPERM") {
      throw new UnusableSpoolDirError(`the spool directory ${dir} cannot be read by this user (${info.code}): spooling will be off`, `give this user read and write access to ${dir}, or choose another directory`);
    }
    throw new Error(`${dir} exists but cannot be read as a spool directory${info.code ? ` (${info.code})` : ""}`);
  }
  const live = found.owners.find((owner) => owner.live);
  return { bytes: found.bytes, traces: found.traces, oldestAgeMs: found.oldestRecordAgeMillis ?? null, lockedByLivePid: live ? live.pid : null };
};
