import type { DoctorFinding, DoctorReport } from "./types.js";

function label(f: DoctorFinding): string {
  if (f.skipped) return "skip";
  if (f.ok) return "ok";
  return f.severity === "error" ? "ERROR" : f.severity === "warning" ? "WARN" : "note";
}

/**
 * The report as text for a terminal: one line per finding (`ok`, `skip`, `ERROR`, `WARN`, `note`, the
 * check, what was found), its fix beneath it, and a verdict at the end.
 */
export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.findings.map((f) => f.check.length));
  const lines = [`evaltrace doctor ${report.version}: app in ${report.cwd}, service at ${report.baseUrl}`, ""];
  for (const f of report.findings) {
    lines.push(`${label(f).padEnd(5)} ${f.check.padEnd(width)}  ${f.message}`);
    if (f.fix) lines.push(`${" ".repeat(width + 8)}fix: ${f.fix}`);
  }
  const errors = report.findings.filter((f) => !f.ok && f.severity === "error").length;
  const warnings = report.findings.filter((f) => !f.ok && f.severity === "warning").length;
  lines.push("");
  lines.push(report.healthy ? "healthy: nothing to fix" : `not healthy: ${errors} error(s), ${warnings} warning(s)`);
  if (!report.inApp) lines.push("(the runtime checks need the app's process: call doctor() from evaltrace/doctor in the app)");
  return `${lines.join("\n")}\n`;
}
