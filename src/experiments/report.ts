import type { ExperimentCaseResult, ExperimentOutput, ExperimentSummary, PassCounts } from "./types.js";

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
const score = (v: number | null) => (v === null ? "-" : v.toFixed(2));

function row(name: string, c: PassCounts, mean: number | null = null, min: number | null = null): string[] {
  return [name, String(c.passed), String(c.failed), String(c.errored), String(c.notJudged), pct(c.passRate), score(mean), score(min)];
}

/** How many failing cases the summary shows, in full. */
export const FAILING_CASES_SHOWN = 5;
const MAX_TEXT = 200;

/** A value on one line, cut at {@link MAX_TEXT} characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT)}...` : flat;
}

/** The first failing cases (a task that failed, or a metric that failed or errored): input, output, and each bad metric's score and reason, or the task's error. */
export function formatFailures(results: readonly ExperimentCaseResult[], shown = FAILING_CASES_SHOWN): string[] {
  const failing = results.filter((r) => !r.aborted && (r.error !== undefined || r.metrics.some((m) => m.state === "failed" || m.state === "errored")));
  if (failing.length === 0) return [];
  const lines = [`failing cases (${Math.min(shown, failing.length)} of ${failing.length}):`];
  for (const r of failing.slice(0, shown)) {
    const g = r.golden as { input?: string; scenario?: string };
    lines.push(`  golden ${r.goldenIndex}${r.trial > 0 ? ` trial ${r.trial}` : ""}: input ${JSON.stringify(oneLine(g.input ?? g.scenario ?? ""))}`);
    if (r.error !== undefined) {
      lines.push(`    task error: ${oneLine(r.error)}`);
      continue;
    }
    lines.push(`    output ${JSON.stringify(oneLine(r.actualOutput ?? ""))}`);
    for (const m of r.metrics) {
      if (m.state === "failed") lines.push(`    ${m.name}: failed, score ${score(m.score)} < ${score(m.threshold)}${m.reason ? `: ${oneLine(m.reason)}` : ""}`);
      else if (m.state === "errored") lines.push(`    ${m.name}: errored: ${oneLine(m.error ?? "")}`);
    }
  }
  return lines;
}

/** The summary as a plain-text table (the tasks, then each metric with its mean and min score), notes, and the first failing cases. */
export function formatSummary(s: ExperimentSummary, results: readonly ExperimentCaseResult[] = []): string {
  const rows = [["", "passed", "failed", "errored", "not judged", "pass rate", "mean", "min"], row("tasks", s.tasks), ...s.metrics.map((m) => row(m.name, m, m.meanScore, m.minScore))];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  const runs = s.testRunIds.length === 0 ? "no test run (nothing to send)" : `test run${s.testRunIds.length > 1 ? "s" : ""} ${s.testRunIds.join(", ")}`;
  const trials = s.trials > 1 ? ` x ${s.trials} trials` : "";
  const head = `${s.identifier}: ${s.total} golden(s)${trials}, ${s.sent} sent to ${s.metricCollection}, ${runs}, ${(s.durationMillis / 1000).toFixed(1)} s`;
  const notes: string[] = [];
  if (s.tasks.aborted > 0) notes.push(`${s.tasks.aborted} case(s) aborted before they finished (not sent)`);
  for (const m of s.metrics) {
    if (m.notJudged > 0) notes.push(`${m.name}: ${m.notJudged} not judged: ${m.notJudgedReasons.join("; ")}`);
    for (const e of m.errors) notes.push(`${m.name}: errored: ${oneLine(e)}`);
  }
  if (s.trials > 1) notes.push(...spread(s));
  return `${[head, ...rows.map(line), ...notes.map((n) => `note: ${n}`), ...formatFailures(results)].join("\n")}\n`;
}

/** With trials: the goldens whose scores varied most across their trials. */
function spread(s: ExperimentSummary): string[] {
  const varied = s.goldens.flatMap((g) => g.metrics.filter((m) => (m.stdDev ?? 0) > 0).map((m) => ({ g, m })));
  varied.sort((a, b) => (b.m.stdDev ?? 0) - (a.m.stdDev ?? 0));
  return varied.slice(0, FAILING_CASES_SHOWN).map(({ g, m }) => `golden ${g.goldenIndex} ${m.name}: mean ${score(m.meanScore)}, min ${score(m.minScore)}, max ${score(m.maxScore)}, sd ${score(m.stdDev)} over ${g.trials} trials`);
}
