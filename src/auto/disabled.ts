import { isLibraryName, LIBRARIES, type LibraryName } from "./libraries.js";

/** The environment variable that turns libraries off for zero-code: `openai,langchain` (or `all`). */
export const DISABLE_ENV = "EVALTRACE_DISABLE_INSTRUMENTATIONS";

/**
 * The libraries the environment turns off: `EVALTRACE_DISABLE_INSTRUMENTATIONS`, names separated
 * by commas or spaces (`all` or `*`: every one). Unknown names are reported.
 */
export function disabledByEnvironment(value: string | undefined): { disabled: LibraryName[]; unknown: string[] } {
  const names = (value ?? "")
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes("all") || names.includes("*")) return { disabled: [...LIBRARIES], unknown: [] };
  return { disabled: names.filter(isLibraryName), unknown: names.filter((n) => !isLibraryName(n)) };
}

