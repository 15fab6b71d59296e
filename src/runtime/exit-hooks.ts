import { nothingAnswersFix } from "../http/transport.js";
import type { Registry } from "./registry.js";
import { allRuntimes } from "./registry.js";

type Listener = (...args: unknown[]) => void;
type Proc = {
  on(event: string, listener: Listener): unknown;
  prependListener?(event: string, listener: Listener): unknown;
  removeListener(event: string, listener: Listener): unknown;
  listeners(event: string): Listener[];
  kill(pid: number, signal: string): unknown;
  pid: number;
};

/** Marks our own listeners, so that those of every evaltrace copy are told from the app's. */
const OURS = Symbol.for("evaltrace.exitHook");

function ours(listener: Listener): Listener {
  (listener as { [OURS]?: boolean })[OURS] = true;
  return listener;
}

function appListeners(proc: Proc, event: string): number {
  return proc.listeners(event).filter((l) => !(l as { [OURS]?: boolean })[OURS]).length;
}

/**
 * Delivers on the way out, once per process:
 * - `beforeExit` (the loop ran dry: the app ended without `flush()`): traces still open can no
 *   longer end, so they are sent as they stand (streams nobody read cut short, as at every drain),
 *   then everything is flushed; the flush keeps the process alive until delivered or
 *   `shutdownTimeoutMillis`.
 * - SIGTERM / SIGINT with no handler of the app: shut down (running work gets half the budget
 *   to end), then the signal is re-raised so that the process ends as it would have.
 * - SIGTERM / SIGINT with the app's own handler: the app decides when to exit. What has finished
 *   is flushed and recording goes on, so that the app's own `await flush()` after draining its
 *   requests delivers them too.
 * - `exit` (process.exit(), an uncaught exception, or the end after a flush that timed out):
 *   nothing can be sent any more; one warning says how many traces are left behind, and why
 *   by how the process ended.
 */
export function installExitHooks(reg: Registry): void {
  if (reg.hooksInstalled) return;
  const proc = (globalThis as { process?: Proc }).process;
  if (!proc || typeof proc.on !== "function" || typeof proc.listeners !== "function") return;
  if (!reg.current?.options.registerExitHooks) return;
  reg.hooksInstalled = true;
  // Next.js's edge runtime has a `process` whose `on` is a stub that throws (issue 49): a
  // function, but no way to listen. There a process has no exit to hook: nothing is installed,
  // and what was installed before the throw is taken back.
  const added: [string, Listener][] = [];
  try {
    addHooks(proc, reg, (event, listener, first) => {
      if (first && typeof proc.prependListener === "function") proc.prependListener(event, listener);
      else proc.on(event, listener);
      added.push([event, listener]);
    });
  } catch {
    for (const [event, listener] of added) {
      try {
        proc.removeListener(event, listener);
      } catch {
        // A stub that throws here too: nothing was added through it either.
      }
    }
    reg.current?.logger.debug("exit hooks: process.on is not available in this runtime (an edge runtime?): none installed; deliver with deliver() or flush()");
  }
}

function addHooks(proc: Proc, reg: Registry, on: (event: string, listener: Listener, first?: boolean) => void): void {
  // Hooks are installed once per process; the current configure() says whether they act.
  const wanted = () => reg.current?.options.registerExitHooks === true;
  // How the process is ending, for the warning at `exit`: the loop ran dry (then the flush on
  // the way out ran out of time), an uncaught exception, a signal the app handles itself (its
  // handler, such as `next start`'s, then called process.exit()), or else process.exit().
  let ending: "ranDry" | "uncaught" | "SIGTERM" | "SIGINT" | undefined;
  on(
    "uncaughtExceptionMonitor",
    ours(() => {
      ending = "uncaught";
    }),
  );
  on(
    "beforeExit",
    ours(() => {
      ending ??= "ranDry";
      if (!wanted()) return;
      // The one drain (runtime/drain.ts), with nothing to wait for: the loop is dry. It flushes
      // once per new batch of work (a flush that timed out is not retried forever).
      for (const live of allRuntimes()) {
        if (live.isShutdown) continue;
        void live.drain({ reason: "exit", budget: live.options.shutdownTimeoutMillis });
      }
    }),
  );
  on(
    "exit",
    ours(() => {
      const runtimes = allRuntimes();
      const left = runtimes.reduce((n, rt) => n + rt.openTraces, 0);
      const current = reg.current;
      if (left === 0 || !current) return;
      const { baseUrl, shutdownTimeoutMillis } = current.options;
      const nothingAnswers = current.nothingAnswers;
      const why =
        ending === "ranDry" && nothingAnswers !== undefined
          ? `nothing answers at ${baseUrl} (${nothingAnswers}): ${nothingAnswersFix(baseUrl)}.`
          : ending === "ranDry"
          ? `the flush on the way out did not finish within shutdownTimeoutMillis (${shutdownTimeoutMillis} ms; the service at ${baseUrl} did not take them in time). Check that the service is reachable (stats() and the warnings above say what failed) or raise shutdownTimeoutMillis.`
          : ending === "uncaught"
            ? "the process ended on an uncaught exception, and nothing can be sent after it. Await flush() in your error handling before the process ends."
            : ending === "SIGTERM" || ending === "SIGINT"
              ? `the app's own ${ending} handler ended the process with process.exit() before they were sent (next start's does so). Deliver each request's traces as it ends (in Next.js: deliver(after) in the handler, docs/nextjs.md), or await flush() in that handler before process.exit().`
              : "process.exit() ends a process at once and nothing can be sent after it. Await flush() (or shutdown()) before process.exit().";
      current.logger.warn(`the process exited with ${left} trace(s) not delivered: ${why}`);
    }),
  );
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const onSignal = ours(() => {
      const runtimes = allRuntimes();
      if (appListeners(proc, signal) > 0) {
        ending ??= signal;
        if (!wanted()) return;
        for (const live of runtimes) if (!live.isShutdown) void live.flush(live.options.shutdownTimeoutMillis);
        return;
      }
      const done = wanted() ? Promise.all(runtimes.map((rt) => rt.shutdown())) : Promise.resolve();
      void done.finally(() => {
        proc.removeListener(signal, onSignal);
        // Re-raised only when no listener is left, so Node's default (exit by the signal) runs.
        if (proc.listeners(signal).length === 0) proc.kill(proc.pid, signal);
      });
    });
    // First of the signal's listeners: an app's handler that calls process.exit() (next start's,
    // registered before instrumentation.ts runs) would otherwise end the process before ours
    // runs, and the warning at `exit` could not say why. Ours only starts work, so the app's
    // handler runs right after, as it would have.
    on(signal, onSignal, true);
  }
}
