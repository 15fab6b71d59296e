/** Where the SDK reports what it does. Every method is optional to implement fully; all four are called. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The level below which the default console logger stays silent. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/** A logger that writes `[evaltrace] ...` lines to the console from `level` up. */
export function consoleLogger(level: LogLevel = "warn"): Logger {
  const at = order[level];
  const write = (l: Exclude<LogLevel, "silent">) => (message: string) => {
    if (order[l] >= at) console[l === "debug" ? "debug" : l](`[evaltrace] ${message}`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Whether a secret is scrubbed from what is sent and logged: one of 4+ characters. */
export function isScrubbed(secret: string | undefined): secret is string {
  return secret !== undefined && secret.length >= 4;
}

/** Replaces every occurrence of each secret (4+ characters) in `text` with `[REDACTED]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (isScrubbed(secret) && out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

/**
 * Wraps a logger so that the given secrets never reach it, and so that a throwing logger never
 * throws into the SDK (and through it into the host app).
 */
export function safeLogger(inner: Logger, secrets: () => readonly string[]): Logger {
  const scrub = (message: string): string => redact(message, secrets());
  const guard = (method: keyof Logger) => (message: string) => {
    try {
      inner[method](scrub(message));
    } catch {
      // A broken logger must not break the app it observes.
    }
  };
  return { debug: guard("debug"), info: guard("info"), warn: guard("warn"), error: guard("error") };
}

/**
 * Whether a running count of dropped items is worth reporting now: at 1, 10, 100, ... so a
 * steady loss is visible in the log without flooding it.
 */
export function isReportableCount(count: number): boolean {
  return count > 0 && Number.isInteger(Math.log10(count));
}
