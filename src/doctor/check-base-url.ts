import { versionSuffix, versionSuffixWarning } from "../config/base-url.js";
import { isLoopbackHost } from "../util/loopback.js";
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

const isLoopback = (url: URL): boolean => isLoopbackHost(url.hostname);

/**
 * The service address: reachable within the timeout, and the emulator (`evaltrace dev`) or the
 * service. Plain http to another host than this one is flagged: the key would travel in clear.
 */
export const checkBaseUrl: Check = async (ctx) => {
  const check = "base-url" as const;
  if (ctx.unusableBaseUrl) {
    ctx.reach = { kind: "unreachable", reason: "no usable address" };
    return [{ check, ok: true, severity: "info", skipped: true, message: `not checked: ${ctx.unusableBaseUrl.variable} is not an http(s) URL (see config)` }];
  }
  const findings: DoctorFinding[] = [];
  // An address ending in /v1 is the service's with the version the SDK adds itself: say so, and
  // check the address meant.
  const without = versionSuffix(ctx.baseUrl);
  if (without !== undefined) {
    findings.push({ check, ok: false, severity: "error", message: `${versionSuffixWarning(ctx.baseUrl, without).replace(/: set it to .*$/, "")}`, fix: `set EVALTRACE_BASE_URL (or configure({ baseUrl })) to ${without}` });
  }
  const address = without ?? ctx.baseUrl;
  ctx.probedBaseUrl = address;
  const url = new URL(address);
  if (url.protocol === "http:" && !isLoopback(url)) {
    findings.push({
      check,
      ok: false,
      severity: "warning",
      message: `${address} is plain http to another host: the API key travels unencrypted`,
      fix: "use the https:// address of the service",
    });
  }
  // The key opens the emulator's reads beyond loopback; one that cannot travel is the key check's to report.
  const headers: Record<string, string> = ctx.apiKey && isHeaderSafe(ctx.apiKey) ? { [ctx.apiKeyHeader]: ctx.apiKey } : {};
  const answer = await probeGet(`${address}${EMULATOR_PROBE_PATH}`, headers, ctx.timeoutMillis);
  if ("error" in answer) {
    ctx.reach = { kind: "unreachable", reason: answer.error };
    const local = isLoopback(url);
    findings.push({
      check,
      ok: false,
      severity: "error",
      message: `${address} is not reachable: ${answer.error}; nothing can be sent`,
      fix: local
        ? `start the emulator (npx evaltrace dev --port ${url.port || "80"}), or set EVALTRACE_BASE_URL to the service's address`
        : "check the address (EVALTRACE_BASE_URL or configure({ baseUrl })), the network, a proxy or firewall on the way",
    });
    return findings;
  }
  if (answer.status === 200 && isEmulatorAnswer(answer.body)) {
    ctx.reach = { kind: "emulator" };
    findings.push({ check, ok: true, severity: "info", message: `${address} answers: the local emulator (evaltrace dev); traces stay on this machine` });
  } else {
    ctx.reach = { kind: "service", status: answer.status };
    findings.push({ check, ok: true, severity: "info", message: `${address} answers (HTTP ${answer.status} on ${EMULATOR_PROBE_PATH}): not the emulator, so taken for the service` });
  }
  return findings;
};
