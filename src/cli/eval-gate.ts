import type { ExperimentSummary } from "../experiments/types.js";

/** The lines of the pass-rate gate, and whether it passed; without `min`, only the errored metrics' lines. */
export function gate(summary: ExperimentSummary, min: number | undefined): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  const check = (name: string, rate: number | null, notJudgedReasons: string[], errored: number) => {
    if (errored > 0) lines.push(`${name}: ${errored} errored, gated`);
    if (min === undefined) return;
    if (rate === null) {
      if (errored === 0) lines.push(`${name}: not judged${notJudgedReasons.length > 0 ? ` (${notJudgedReasons.join("; ")})` : ""}, not gated`);
      return;
    }
    const below = rate < min;
    if (below) ok = false;
    lines.push(`${name}: ${(rate * 100).toFixed(1)}% ${below ? "<" : ">="} ${(min * 100).toFixed(1)}%${below ? " FAILED" : ""}`);
  };
  check("tasks", summary.tasks.passRate, [], 0);
  for (const m of summary.metrics) check(m.name, m.passRate, m.notJudgedReasons, m.errored);
  return { ok, lines };
}

/** The errored verdicts of a run: how many, and the lines naming each distinct error once (per metric). */
export function erroredReport(summary: ExperimentSummary): { count: number; lines: string[] } {
  const lines: string[] = [];
  let count = 0;
  for (const m of summary.metrics) {
    if (m.errored === 0) continue;
    count += m.errored;
    if (m.errors.length <= 1) lines.push(`${m.name} errored on ${m.errored} case(s): ${m.errors[0] ?? "no reason given"}`);
    else lines.push(`${m.name} errored on ${m.errored} case(s), ${m.errors.length} distinct errors:`, ...m.errors.map((e) => `  ${e}`));
  }
  return { count, lines };
}
