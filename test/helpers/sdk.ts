import { configure, type EvaltraceOptions, type Logger } from "../../src/index.js";

/** A logger that keeps every line, to assert on what the SDK reported. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string) => {
    lines.push(`${level}: ${m}`);
  };
  return { lines, debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") };
}

/** Configures the SDK for a test: a key, a base URL, no exit hooks, a memory logger. */
export function configureForTest(baseUrl: string, apiKey: string, options: EvaltraceOptions = {}) {
  const logger = memoryLogger();
  configure({ apiKey, baseUrl, registerExitHooks: false, logger, ...options });
  return logger;
}
