import { isHttpUrl, processEnv, type ResolvedOptions, resolveOptions } from "../config/options.js";
import { currentRuntime } from "../runtime/configure.js";
import { VERSION } from "../version.js";
import { checkApiKey } from "./check-api-key.js";
import { checkBaseUrl } from "./check-base-url.js";
import { checkConfig } from "./check-config.js";
import { checkDuplicates } from "./check-duplicates.js";
import { checkExitFlush } from "./check-exit-flush.js";
import { checkIntegrations } from "./check-integrations.js";
import { checkModuleFormat } from "./check-module-format.js";
import { checkSpool } from "./check-spool.js";
import { checkTracerProvider } from "./check-tracer-provider.js";
import type { Check, CheckContext } from "./context.js";
import { defaultSpoolInspector } from "./spool-inspector.js";
import type { CheckName, DoctorFinding, DoctorOptions, DoctorReport } from "./types.js";

/** Every check, in the order of the report (the key check reads what the base-url check found). */
const CHECK_TABLE: readonly (readonly [CheckName, Check])[] = [
  ["config", checkConfig],
  ["base-url", checkBaseUrl],
  ["api-key", checkApiKey],
  ["duplicates", checkDuplicates],
  ["tracer-provider", checkTracerProvider],
  ["integrations", checkIntegrations],
  ["module-format", checkModuleFormat],
  ["exit-flush", checkExitFlush],
  ["spool", checkSpool],
];

const OPTION_KEYS = ["cwd", "baseUrl", "apiKey", "timeoutMillis", "spoolDir", "inspectSpool", "spoolStaleMillis"];

function fail(message: string): never {
  throw new TypeError(`evaltrace doctor(): ${message}`);
}

function checkOptions(options: DoctorOptions): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) fail("options must be an object");
  for (const key of Object.keys(options)) if (!OPTION_KEYS.includes(key)) fail(`unknown option \`${key}\` (known: ${OPTION_KEYS.join(", ")})`);
  for (const key of ["cwd", "apiKey", "spoolDir"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.length === 0)) fail(`\`${key}\` must be a non-empty string`);
  }
  if (options.baseUrl !== undefined && (typeof options.baseUrl !== "string" || !isHttpUrl(options.baseUrl))) fail(`\`baseUrl\` must be an http(s) URL; got ${JSON.stringify(options.baseUrl)}`);
  for (const key of ["timeoutMillis", "spoolStaleMillis"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0 && value <= 2_147_483_647)) fail(`\`${key}\` must be a positive integer of milliseconds`);
  }
  if (options.inspectSpool !== undefined && typeof options.inspectSpool !== "function") fail("`inspectSpool` must be a function");
}

/** The settings the app runs with: its runtime's when it has one (in the app), else the environment's. */
function settings(inApp: boolean): { resolved: ResolvedOptions | undefined; problems: string[] } {
  const current = inApp ? currentRuntime()?.options : undefined;
  if (current) return { resolved: current, problems: current.envProblems };
  try {
    const resolved = resolveOptions({ logLevel: "silent" });
    return { resolved, problems: resolved.envProblems };
  } catch (error) {
    return { resolved: undefined, problems: [(error as Error).message] };
  }
}

/**
 * Runs every check and gathers the report. `inApp`: the runtime checks read this process (the
 * app's); the CLI passes false, and they say where to run them instead.
 */
export async function runDoctor(options: DoctorOptions, inApp: boolean): Promise<DoctorReport> {
  checkOptions(options);
  const { resolved, problems } = settings(inApp);
  const baseUrl = (options.baseUrl ?? resolved?.baseUrl ?? "http://127.0.0.1:4680").replace(/\/+$/, "");
  // An unusable address in the environment: the report names it, not the default it fell back to.
  const unusableBaseUrl = options.baseUrl === undefined ? resolved?.unusableBaseUrl : undefined;
  const ctx: CheckContext = {
    cwd: options.cwd ?? process.cwd(),
    inApp,
    apiKey: options.apiKey ?? resolved?.apiKey,
    baseUrl,
    apiKeyHeader: resolved?.apiKeyHeader ?? "SERVICE_API_KEY",
    timeoutMillis: options.timeoutMillis ?? 2000,
    enabled: resolved?.enabled ?? true,
    sampleRate: resolved?.sampleRate ?? 1,
    configProblems: problems,
    ...(unusableBaseUrl ? { unusableBaseUrl } : {}),
    spoolDir: options.spoolDir ?? resolved?.spool?.dir ?? (processEnv().EVALTRACE_SPOOL_DIR || undefined),
    spoolWriteAhead: resolved?.spool?.writeAhead ?? false,
    inspectSpool: options.inspectSpool ?? defaultSpoolInspector,
    spoolStaleMillis: options.spoolStaleMillis ?? 300_000,
  };
  const findings: DoctorFinding[] = [];
  for (const [name, check] of CHECK_TABLE) {
    try {
      findings.push(...(await check(ctx)));
    } catch (error) {
      // A check that breaks is a finding, never a throw out of the doctor.
      findings.push({ check: name, ok: false, severity: "warning", message: `the check itself failed: ${(error as Error)?.message ?? String(error)}`, fix: "report it to evaltrace with this output" });
    }
  }
  const healthy = findings.every((f) => f.ok || f.severity === "info");
  return { healthy, findings, cwd: ctx.cwd, baseUrl: unusableBaseUrl?.value ?? baseUrl, inApp, version: VERSION };
}

/**
 * Checks this app's evaltrace setup from inside it: the API key (valid? a project key?), the
 * service address (reachable? the service or the emulator?), duplicate copies of
 * `@opentelemetry/api` or evaltrace, the global tracer provider (does it carry an
 * `EvaltraceSpanProcessor`?), which integrations are on and which installed libraries are not
 * instrumented, the module format, whether the process flushes at exit, and the disk spool.
 * Network checks wait at most `timeoutMillis` each, without retries. Never throws for what it
 * finds; every finding says what is wrong and the fix.
 *
 * @throws TypeError for an unknown option or a wrong value.
 * @example
 * import { doctor, formatDoctorReport } from "evaltrace/doctor";
 * const report = await doctor();
 * if (!report.healthy) console.error(formatDoctorReport(report));
 */
export function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  return runDoctor(options, true);
}
