/** The checks `doctor()` runs, by name, in the order they are reported. */
export const CHECKS = ["config", "base-url", "api-key", "duplicates", "tracer-provider", "integrations", "module-format", "exit-flush", "spool"] as const;

/** One of {@link CHECKS}. */
export type CheckName = (typeof CHECKS)[number];

/**
 * How bad a finding is: `error` (traces are lost or never sent), `warning` (some are, or will
 * be), `info` (a fact, or a note that needs no action). A finding that is not `ok` with severity
 * `error` or `warning` makes the report unhealthy.
 */
export type Severity = "error" | "warning" | "info";

/** What one check found: what is wrong (or right) and, when something is wrong, the fix. */
export interface DoctorFinding {
  check: CheckName;
  /** Whether this finding is fine as it is. */
  ok: boolean;
  severity: Severity;
  /** One line: what was found. */
  message: string;
  /** What to do about it; undefined when nothing is to be done. */
  fix?: string;
  /** The check could not run here (the runtime checks from the command line); `ok` is true. */
  skipped?: boolean;
}

/** What `doctor()` found. */
export interface DoctorReport {
  /** No finding is a failed `error` or `warning`. */
  healthy: boolean;
  /** Every finding, grouped by check in the order of {@link CHECKS}. */
  findings: DoctorFinding[];
  /** Where the checks looked: the app's directory and the service address. */
  cwd: string;
  baseUrl: string;
  /** Whether the runtime checks read this process (`doctor()` in the app) or were skipped (the CLI). */
  inApp: boolean;
  /** The SDK version that ran the checks. */
  version: string;
}

/** The spool check's reading of a spool directory (by default from `inspectSpool(dir)` of `evaltrace`). */
export interface SpoolReading {
  bytes: number;
  traces: number;
  /** Age of the oldest spooled record in milliseconds; null when the spool is empty. */
  oldestAgeMs: number | null;
  /** A live process holding the spool's lock, or null. */
  lockedByLivePid: number | null;
}

/** Reads a spool directory. */
export type SpoolInspector = (dir: string) => Promise<SpoolReading>;

/** Options of `doctor()`. */
export interface DoctorOptions {
  /** The app's directory: where its package.json and node_modules are looked for. @default process.cwd() */
  cwd?: string;
  /** The service address to check. @default the configured one (`configure()`, else EVALTRACE_BASE_URL) */
  baseUrl?: string;
  /** The API key to check. @default the configured one (`configure()`, else EVALTRACE_API_KEY) */
  apiKey?: string;
  /** Longest wait of each network request, in milliseconds (no retries). @default 2000 */
  timeoutMillis?: number;
  /** The spool directory to check. @default EVALTRACE_SPOOL_DIR */
  spoolDir?: string;
  /** Reads the spool; without one a configured spool is reported as not inspectable. */
  inspectSpool?: SpoolInspector;
  /** How long spooled records may wait before the spool counts as not draining, in milliseconds. @default 300000 */
  spoolStaleMillis?: number;
}
