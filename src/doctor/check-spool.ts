import { registry } from "../runtime/registry.js";
import type { Check, CheckContext } from "./context.js";
import { UnusableSpoolDirError } from "./spool-inspector.js";

function age(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * Which mode the spool is in, and how many traces are only in memory: the app's own numbers in
 * the app (`stats().spoolMode`, `tracesOnlyInMemory`); from the command line, the mode configured.
 */
function modeOf(ctx: CheckContext): string {
  const s = ctx.inApp ? registry().current?.stats() : undefined;
  if (s !== undefined && s.spoolMode !== "none") return `mode ${s.spoolMode}: ${s.tracesOnlyInMemory} trace(s) of this process only in memory`;
  return `mode ${ctx.spoolWriteAhead ? "write-ahead" : "memory-first"} as configured; an outage, and what is only in memory, are in the app's stats()`;
}

/**
 * The disk spool (traces kept on disk while the service cannot take them): none configured, empty
 * or recent, or not draining (records older than `spoolStaleMillis`), read by the spool's own
 * inspector. A lock held by another live process is named, and so is the spool's mode.
 */
export const checkSpool: Check = async (ctx) => {
  const findings = await readSpool(ctx);
  // The mode, of a spool that can be used (an error here means spooling is off).
  if (!ctx.spoolDir || findings.some((f) => f.severity === "error")) return findings;
  return [...findings, { check: "spool", ok: true, severity: "info", message: `the spool is in ${modeOf(ctx)}` }];
};

const readSpool: Check = async (ctx) => {
  const check = "spool" as const;
  const dir = ctx.spoolDir;
  if (!dir) return [{ check, ok: true, severity: "info", message: "no spool configured (EVALTRACE_SPOOL_DIR): traces the service cannot take are retried in memory only" }];
  if (!ctx.inspectSpool) return [{ check, ok: true, severity: "info", message: `spool at ${dir}: this version cannot inspect it` }];
  let found: Awaited<ReturnType<NonNullable<typeof ctx.inspectSpool>>>;
  try {
    found = await ctx.inspectSpool(dir);
  } catch (error) {
    if (error instanceof UnusableSpoolDirError) return [{ check, ok: false, severity: "error", message: error.message, fix: error.fix }];
    return [{ check, ok: false, severity: "warning", message: `the spool at ${dir} cannot be read: ${(error as Error).message}`, fix: "check that the directory exists and this user may read and write it" }];
  }
  const lock = found.lockedByLivePid !== null && found.lockedByLivePid !== process.pid ? `; locked by process ${found.lockedByLivePid}` : "";
  if (found.traces === 0 || found.oldestAgeMs === null) {
    return [{ check, ok: true, severity: "info", message: `the spool at ${dir} is empty${lock}` }];
  }
  const what = `${found.traces} trace(s), ${found.bytes} bytes, the oldest ${age(found.oldestAgeMs)} old`;
  if (found.oldestAgeMs <= ctx.spoolStaleMillis) {
    return [{ check, ok: true, severity: "info", message: `the spool at ${dir} holds ${what}: draining${lock}` }];
  }
  const unreachable = ctx.reach?.kind === "unreachable" ? " (the service is not reachable: see base-url)" : "";
  return [
    {
      check,
      ok: false,
      severity: "warning",
      message: `the spool at ${dir} is not draining: ${what}${unreachable}${lock}`,
      fix:
        found.lockedByLivePid === null
          ? "no process is delivering it: start the app (its runtime sends the spool when the service answers), and fix what base-url and api-key report"
          : `process ${found.lockedByLivePid} holds it and is not delivering: check that process's warnings (stats()), the service's address and key`,
    },
  ];
};
