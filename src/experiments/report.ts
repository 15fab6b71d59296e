import type { ExperimentOutput, ExperimentSummary, PassCounts } from "./types.js";

/**
 * Progress of a run on `out`: a bar redrawn in place on a terminal, else a line each time
 * another few percent (5) of the cases finished, so a CI log stays short.
 */
export function progressReporter(out: ExperimentOutput | null, label: string, total: number) {
  const width = 30;
  const step = Math.max(1, Math.ceil(total / 20));
  let lastLine = 0;
  return {
    update(done: number, failed: number): void {
      if (!out) return;
      const failures = failed > 0 ? ` (${failed} failed)` : "";
      if (out.isTTY) {
        const filled = total === 0 ? width : Math.round((done / total) * width);
        out.write(`\r${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}${failures}${done === total ? "\n" : ""}`);
      } else if (done === total || done - lastLine >= step) {
        lastLine = done;
        out.write(`${label}: ${done}/${total} (${Math.floor((done / total) * 100)}%)${failures}\n`);
      }
    },
    /** Ends the bar's line on a terminal when the run stopped early. */
    stop(done: number): void {
      if (out?.isTTY && done < total) out.write("\n");
    },
  };
}

const pct = (rate: number | null) => (rate === null ? "-" : `${(rate * 100).toFixed(1)}%`);

function row(name: string, c: PassCounts): string[] {
  return [name, String(c.passed), String(c.failed), String(c.notJudged), pct(c.passRate)];
}

/** The summary as a plain-text table: the tasks, then each metric of the collection. */
export function formatSummary(s: ExperimentSummary): string {
  const rows = [["", "passed", "failed", "not judged", "pass rate"], row("tasks", s.tasks), ...s.metrics.map((m) => row(m.name, m))];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  const runs = s.testRunIds.length === 0 ? "no test run (nothing to send)" : `test run${s.testRunIds.length > 1 ? "s" : ""} ${s.testRunIds.join(", ")}`;
  const head = `${s.identifier}: ${s.total} golden(s), ${s.sent} sent to ${s.metricCollection}, ${runs}, ${(s.durationMillis / 1000).toFixed(1)} s`;
  const notes: string[] = [];
  if (s.tasks.aborted > 0) notes.push(`${s.tasks.aborted} case(s) aborted before they finished (not sent)`);
  if (!s.resultsAvailable) notes.push("metric results: the service does not return them through its API (see them on the platform); failed tasks are counted");
  else if (s.metrics.some((m) => m.notJudged > 0)) notes.push("not judged: the service gave no verdict (the emulator without a judge answers NOT_JUDGED)");
  return `${[head, ...rows.map(line), ...notes.map((n) => `note: ${n}`)].join("\n")}\n`;
}
