import { consoleLogger, isReportableCount, type Logger } from "../logger.js";
import { processWide } from "../process-wide.js";

/** Failures inside evaltrace that were caught so that the app never saw them, for the process. */
const counter = (): { count: number; byPart: Map<string, number> } => processWide("internalErrors", () => ({ count: 0, byPart: new Map<string, number>() }));

/** How many failures inside evaltrace were caught so far (`stats().internalErrors`). */
export function internalErrorCount(): number {
  return counter().count;
}

/**
 * Counts a failure inside evaltrace that was caught so that the app never saw it (a span
 * processor callback, a zero-code hook, an integration meeting an unexpected value), and logs it
 * at the 1st, 10th, 100th ... failure of that part, so that a steady failure is visible without
 * flooding the log.
 * `where` names the part that failed. Never throws.
 *
 * @param logger - The runtime's logger; the console when there is no runtime yet.
 */
export function reportInternalError(where: string, error: unknown, logger: Logger | undefined): void {
  try {
    const state = counter();
    const n = ++state.count;
    // `where` names a part of ours (a handful in all), never a value of the app's.
    const ofPart = (state.byPart.get(where) ?? 0) + 1;
    state.byPart.set(where, ofPart);
    if (!isReportableCount(ofPart)) return;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    (logger ?? consoleLogger()).warn(`${where} failed and was skipped, the app unaffected (${n} internal error(s) so far, stats().internalErrors): ${reason}`);
  } catch {
    // Reporting a failure must not be one.
  }
}
