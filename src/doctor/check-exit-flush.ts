import { registry } from "../runtime/registry.js";
import type { Check } from "./context.js";
import type { DoctorFinding } from "./types.js";

/** How evaltrace's exit listeners are marked (runtime/exit-hooks.ts), so they are told from the app's. */
const OURS = Symbol.for("evaltrace.exitHook");

type Listener = (...args: unknown[]) => void;

function isOurs(listener: Listener): boolean {
  return (listener as { [OURS]?: boolean })[OURS] === true;
}

/**
 * Whether the process flushes at exit: the exit hooks installed and still listening
 * (`beforeExit`, SIGTERM, SIGINT), and `registerExitHooks` not turned off. An app's own SIGTERM
 * handler takes over the exit: noted, with what it must do.
 */
export const checkExitFlush: Check = async (ctx) => {
  const check = "exit-flush" as const;
  if (!ctx.inApp) {
    return [{ check, ok: true, severity: "info", skipped: true, message: "not checked from the command line: the exit hooks live in the app's process (on by default; call doctor() from evaltrace/doctor in the app)" }];
  }
  const reg = registry();
  const rt = reg.current;
  if (!rt) {
    return [{ check, ok: true, severity: "info", message: "no runtime yet: configure() (or the first traced call) installs the exit hooks" }];
  }
  if (!rt.options.registerExitHooks) {
    return [
      {
        check,
        ok: false,
        severity: "warning",
        message: "registerExitHooks is false: nothing is flushed when the process ends, and traces still queued are lost",
        fix: "await shutdown() (or flush()) before the process ends, or leave registerExitHooks on",
      },
    ];
  }
  const findings: DoctorFinding[] = [];
  const missing = reg.hooksInstalled ? ["beforeExit", "SIGTERM", "SIGINT"].filter((event) => !process.listeners(event as "beforeExit").some((l) => isOurs(l as Listener))) : ["beforeExit", "SIGTERM", "SIGINT"];
  if (missing.length > 0) {
    findings.push({
      check,
      ok: false,
      severity: "warning",
      message: `evaltrace's exit hooks are not listening for ${missing.join(", ")} (removed by the app, or never installed): queued traces are lost when the process ends that way`,
      fix: "await shutdown() before the process ends, or do not remove other listeners (process.removeAllListeners)",
    });
  } else {
    findings.push({ check, ok: true, severity: "info", message: "the process flushes at exit: hooks on beforeExit, SIGTERM and SIGINT" });
  }
  const appSignal = ["SIGTERM", "SIGINT"].filter((s) => process.listeners(s as "SIGTERM").some((l) => !isOurs(l as Listener)));
  if (appSignal.length > 0) {
    findings.push({
      check,
      ok: true,
      severity: "info",
      message: `the app handles ${appSignal.join(" and ")} itself: it decides when to exit, and evaltrace only flushes what has finished`,
      fix: "in that handler, await flush() (or shutdown()) before process.exit()",
    });
  }
  return findings;
};
