import { join } from "node:path";
import { bundledLibraries } from "../auto/bundled-sdk.js";
import { LIBRARIES, type LibraryName } from "../auto/libraries.js";
import { autoState } from "../auto/state.js";
import type { Check } from "./context.js";
import { LIBRARY_PACKAGES } from "./library-packages.js";
import { ancestorNodeModules, readVersion } from "./node-modules.js";
import type { DoctorFinding } from "./types.js";

/** An installed library: its name for instrument(), the package found and its version. */
interface Installed {
  library: LibraryName;
  pkg: string;
  version: string;
}

/** The instrumentable libraries the app resolves from `cwd`, as Node would (nearest node_modules first). */
export async function installedLibraries(cwd: string): Promise<Installed[]> {
  const out: Installed[] = [];
  const dirs = ancestorNodeModules(cwd);
  for (const library of LIBRARIES) {
    found: for (const pkg of LIBRARY_PACKAGES[library]) {
      for (const nm of dirs) {
        const version = await readVersion(join(nm, pkg), pkg);
        if (version !== undefined) {
          out.push({ library, pkg, version });
          break found;
        }
      }
    }
  }
  return out;
}

const show = (list: Installed[]) => list.map((i) => `${i.library} (${i.pkg} ${i.version})`).join(", ");

/**
 * Which integrations are on (in the app) and which installed libraries are not instrumented. A
 * library left to a manual wrapper (`wrapOpenAI`) is legitimate: those are notes, not failures.
 */
export const checkIntegrations: Check = async (ctx) => {
  const check = "integrations" as const;
  const installed = await installedLibraries(ctx.cwd);
  if (!ctx.inApp) {
    const what = installed.length > 0 ? `installed: ${show(installed)}` : "no library evaltrace instruments is installed";
    return [{ check, ok: true, severity: "info", skipped: true, message: `${what}; which are instrumented is known only in the app (call doctor() from evaltrace/doctor there)` }];
  }
  const state = autoState();
  const enabled = LIBRARIES.filter((l) => state.enabled.has(l));
  const findings: DoctorFinding[] = [];
  if (enabled.length > 0) {
    const loaded = enabled.filter((l) => state.loaded.has(l));
    findings.push({
      check,
      ok: true,
      severity: "info",
      message: `zero-code instrumentation on for ${enabled.join(", ")}${loaded.length > 0 ? `; loaded so far: ${loaded.join(", ")}` : ""}`,
    });
    for (const b of bundledLibraries()) {
      findings.push({
        check,
        ok: false,
        severity: "warning",
        message: `bundled into the app, not instrumented: ${b.pkg} (its requests come from a copy the module hooks never saw load, and are not recorded)`,
        fix: b.fix,
      });
    }
    const off = installed.filter((i) => !state.enabled.has(i.library));
    if (off.length > 0) {
      findings.push({
        check,
        ok: false,
        severity: "info",
        message: `installed but turned off: ${show(off)}`,
        fix: "if that is not meant: remove them from EVALTRACE_DISABLE_INSTRUMENTATIONS or instrument({ ... })",
      });
    }
    return findings;
  }
  if (installed.length === 0) {
    return [{ check, ok: true, severity: "info", message: "no zero-code instrumentation, and no library evaltrace instruments is installed" }];
  }
  return [
    {
      check,
      ok: false,
      severity: "info",
      message: `zero-code instrumentation is off; installed and not instrumented: ${show(installed)} (calls are traced only through clients you wrap yourself, e.g. wrapOpenAI)`,
      fix: "start the app with node --import evaltrace/auto (CommonJS: node -r evaltrace/auto), or call instrument() before importing the libraries",
    },
  ];
};
