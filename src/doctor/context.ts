import type { DoctorFinding, SpoolInspector } from "./types.js";

/** What the service address answered: the emulator, the service (or something else), or nothing. */
export type Reach = { kind: "emulator" } | { kind: "service"; status: number } | { kind: "unreachable"; reason: string };

/** What every check reads: the settings under test and where the app is. */
export interface CheckContext {
  cwd: string;
  /** The runtime checks read this process (doctor() in the app), not the CLI's. */
  inApp: boolean;
  apiKey: string | undefined;
  baseUrl: string;
  apiKeyHeader: string;
  timeoutMillis: number;
  /** Whether tracing is on in the settings (`enabled`), and the share of traces kept. */
  enabled: boolean;
  sampleRate: number;
  /** Environment variables set but unusable, or an option that would not resolve. */
  configProblems: string[];
  /** The base URL variable set to something that is not an http(s) URL: nothing is sent, nothing to probe. */
  unusableBaseUrl?: { variable: string; value: string };
  spoolDir: string | undefined;
  /** Whether the spool is configured to write every batch ahead (`spool.writeAhead`, EVALTRACE_SPOOL_WRITE_AHEAD). */
  spoolWriteAhead: boolean;
  inspectSpool: SpoolInspector | undefined;
  spoolStaleMillis: number;
  /** Set by the base-url check, read by the key check. */
  reach?: Reach;
  /** Set by the base-url check: the address it probed (without a trailing `/v1`), read by the key check. */
  probedBaseUrl?: string;
}

/** One check: its findings (at least one), never a throw for what it checks. */
export type Check = (ctx: CheckContext) => Promise<DoctorFinding[]>;
