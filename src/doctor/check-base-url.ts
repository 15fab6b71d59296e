import type { Check } from "./context.js";
import { isHeaderSafe } from "./check-api-key.js";
import { probeGet } from "./http-probe.js";
import type { DoctorFinding } from "./types.js";

/**
 * The emulator's own read route (`evaltrace dev` serves it; the service's API has no such path):
 * it answers `{ version, traces, evictedTraces }`, numbers. That is how the emulator is told from
 * the service.
 */
export const EMULATOR_PROBE_PATH = "/_dev/version";

function isEmulatorAnswer(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return typeof parsed.version === "number" && typeof parsed.traces === "number";
  } catch {
    return false;
  }
}

function isLoopback(url: URL): boolean {
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(url.hostname);
}

/**
 * The service address: reachable within the timeout, and the emulator (`evaltrace dev`) or the
 * service. Plain http to another host than this one is flagged: the key would travel in clear.
 */
export const checkBaseUrl: Check = async (ctx) => {
  const check = "base-url" as const;
  const url = new URL(ctx.baseUrl);
  const findings: DoctorFinding[] = [];
  if (url.protocol === "http:" && !isLoopback(url)) {
    findings.push({
      check,
      ok: false,
      severity: "warning",
      message: `${ctx.baseUrl} is plain http to another host: the API key travels unencrypted`,
      fix: "use the https:// address of the service",
    });
  }
  // The key opens the emulator's reads beyond loopback; one that cannot travel is the key check's to report.
  const headers: Record<string, string> = ctx.apiKey && isHeaderSafe(ctx.apiKey) ? { [ctx.apiKeyHeader]: ctx.apiKey } : {};
  const answer = await probeGet(`${ctx.baseUrl}${EMULATOR_PROBE_PATH}`, headers, ctx.timeoutMillis);
  if ("error" in answer) {
    ctx.reach = { kind: "unreachable", reason: answer.error };
    const local = isLoopback(url);
    findings.push({
      check,
      ok: false,
      severity: "error",
      message: `${ctx.baseUrl} is not reachable: ${answer.error}; nothing can be sent`,
      fix: local
        ? `start the emulator (npx evaltrace dev --port ${url.port || "80"}), or set EVALTRACE_BASE_URL to the service's address`
        : "check the address (EVALTRACE_BASE_URL or configure({ baseUrl })), the network, a proxy or firewall on the way",
    });
    return findings;
  }
  if (answer.status === 200 && isEmulatorAnswer(answer.body)) {
    ctx.reach = { kind: "emulator" };
    findings.push({ check, ok: true, severity: "info", message: `${ctx.baseUrl} answers: the local emulator (evaltrace dev); traces stay on this machine` });
  } else {
    ctx.reach = { kind: "service", status: answer.status };
    findings.push({ check, ok: true, severity: "info", message: `${ctx.baseUrl} answers (HTTP ${answer.status} on ${EMULATOR_PROBE_PATH}): the service, not the emulator` });
  }
  return findings;
};
