import type { Check } from "./context.js";
import { bodyMessage, probeGet } from "./http-probe.js";
import type { DoctorFinding } from "./types.js";

/**
 * A cheap read-only request of a project endpoint (spec 5: metrics take a project key): 200 means
 * a valid project key, 401 a key that does not authenticate (unknown, deactivated, expired,
 * superseded), 403 a key of the other scope (an organization key).
 */
export const KEY_PROBE_PATH = "/v1/metrics";

/** The scope a key value's prefix shows (spec 2.1: `<svc>_<region>_org_` or `<svc>_<region>_proj_`). */
export function keyScope(key: string): "organization" | "project" | undefined {
  const m = /^[A-Za-z0-9]+_[A-Za-z0-9-]+_(org|proj)_/.exec(key);
  return m ? (m[1] === "org" ? "organization" : "project") : undefined;
}

/** Whether a key can travel in an HTTP header as it is (no whitespace, quotes or control characters). */
export function isHeaderSafe(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key) && !key.includes('"');
}

/** The last characters of a key, as the service shows it masked. */
function masked(key: string): string {
  return `...${key.slice(-6)}`;
}

const PROJECT_FIX = "use a project key (svc_<region>_proj_...): set EVALTRACE_API_KEY or configure({ apiKey }); organization keys only rotate and (de)activate keys";

/** The API key: set, a project key by its prefix, and accepted by the service for a project endpoint. */
export const checkApiKey: Check = async (ctx) => {
  const check = "api-key" as const;
  const key = ctx.apiKey;
  if (!key) {
    const fromEmulator = ctx.reach?.kind === "emulator" ? " (the emulator prints its project key when it starts)" : "";
    return [
      {
        check,
        ok: false,
        severity: "error",
        message: "no API key: tracing is off and nothing is sent (the app runs untouched)",
        fix: `set EVALTRACE_API_KEY to a project key${fromEmulator}, or pass configure({ apiKey })`,
      },
    ];
  }
  if (!isHeaderSafe(key)) {
    return [
      {
        check,
        ok: false,
        severity: "error",
        message: "the key holds whitespace, quotes or control characters (a newline or space copied with it?): every request with it fails",
        fix: "set EVALTRACE_API_KEY to the key alone, trimmed",
      },
    ];
  }
  const scope = keyScope(key);
  const findings: DoctorFinding[] = [];
  if (scope === "organization") {
    findings.push({ check, ok: false, severity: "error", message: `the key ${masked(key)} is an organization key (its prefix says so): traces are refused with it`, fix: PROJECT_FIX });
  }
  if (ctx.reach?.kind === "unreachable" || ctx.reach === undefined) {
    if (findings.length > 0) return findings;
    findings.push({ check, ok: true, severity: "info", skipped: true, message: `the key ${masked(key)} was not verified: the service is not reachable` });
    return findings;
  }
  const answer = await probeGet(`${ctx.probedBaseUrl ?? ctx.baseUrl}${KEY_PROBE_PATH}`, { [ctx.apiKeyHeader]: key }, ctx.timeoutMillis);
  if ("error" in answer) {
    findings.push({ check, ok: false, severity: "warning", message: `the key ${masked(key)} could not be verified: GET ${KEY_PROBE_PATH} failed: ${answer.error}`, fix: "run the doctor again; if it persists, check the service's status" });
  } else if (answer.status === 200) {
    findings.push({ check, ok: true, severity: "info", message: `the key ${masked(key)} is a valid project key (GET ${KEY_PROBE_PATH} answered 200)` });
  } else if (answer.status === 401) {
    findings.push({
      check,
      ok: false,
      severity: "error",
      message: `the service rejects the key ${masked(key)}: ${bodyMessage(answer.body)}`,
      fix: "the key is unknown, deactivated, expired or replaced by a rotation: take a current project key from the platform (or the emulator's banner) into EVALTRACE_API_KEY",
    });
  } else if (answer.status === 403) {
    // Said once: the prefix may already have named it.
    if (scope !== "organization") {
      findings.push({ check, ok: false, severity: "error", message: `the key ${masked(key)} is refused for project endpoints (an organization key?): ${bodyMessage(answer.body)}`, fix: PROJECT_FIX });
    }
  } else {
    findings.push({
      check,
      ok: false,
      severity: "warning",
      message: `the key ${masked(key)} could not be verified: GET ${KEY_PROBE_PATH} answered HTTP ${answer.status} (${bodyMessage(answer.body)})`,
      fix: "check that the base URL is the service's API address (no extra path), and the service's status",
    });
  }
  return findings;
};
