import { stat } from "node:fs/promises";
import { inspectSpool } from "../export/spool/inspect.js";
import type { SpoolInspector } from "./types.js";

/**
 * The inspector `doctor()` uses when it is given none: the disk spool's own `inspectSpool`, read
 * as the spool check needs it. A directory not made yet is an empty spool (the spool makes it on
 * its first write); one that exists but cannot be read is an error the check reports.
 */
export const defaultSpoolInspector: SpoolInspector = async (dir) => {
  const found = await inspectSpool(dir);
  if (!found.readable) {
    const exists = await stat(dir).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
    );
    if (exists) throw new Error(`${dir} exists but cannot be read as a spool directory`);
    return { bytes: 0, traces: 0, oldestAgeMs: null, lockedByLivePid: null };
  }
  const live = found.owners.find((owner) => owner.live);
  return { bytes: found.bytes, traces: found.traces, oldestAgeMs: found.oldestRecordAgeMillis ?? null, lockedByLivePid: live ? live.pid : null };
};
