import { baseUrlFix } from "../config/base-url.js";
import { REPOSITORY_DOCS } from "./docs-link.js";
import type { Check } from "./context.js";
import type { DoctorFinding } from "./types.js";

/** The settings themselves: environment variables that could not be used, tracing turned off, nothing sampled. */
export const checkConfig: Check = async (ctx) => {
  const check = "config" as const;
  const bad = ctx.unusableBaseUrl;
  const findings: DoctorFinding[] = [];
  if (bad) {
    // One error for it: tracing is off because of it, and no address is left to check.
    findings.push({
      check,
      ok: false,
      severity: "error",
      message: `environment variable ${bad.variable}=${JSON.stringify(bad.value)} is not an http(s) URL: tracing is off and nothing will be sent`,
      fix: baseUrlFix(bad.variable, bad.value),
    });
  }
  for (const problem of ctx.configProblems) {
    if (bad && problem.startsWith(`environment variable ${bad.variable}=`)) continue;
    findings.push({ check, ok: false, severity: "warning", message: problem, fix: `fix or unset the variable (${REPOSITORY_DOCS}configuration.md lists them)` });
  }
  if (!ctx.enabled && !bad) {
    findings.push({
      check,
      ok: false,
      severity: "warning",
      message: "tracing is turned off (EVALTRACE_TRACING_ENABLED=false or configure({ enabled: false }))",
      fix: "unset EVALTRACE_TRACING_ENABLED (or set it to true) where traces are wanted",
    });
  } else if (ctx.sampleRate === 0) {
    findings.push({ check, ok: false, severity: "warning", message: "sampleRate is 0: every trace is dropped", fix: "set EVALTRACE_SAMPLE_RATE (or configure({ sampleRate })) above 0" });
  }
  if (findings.length === 0) {
    findings.push({ check, ok: true, severity: "info", message: `settings resolve: tracing on, sample rate ${ctx.sampleRate}, base URL ${ctx.baseUrl}` });
  }
  return findings;
};
