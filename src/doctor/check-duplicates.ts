import { relative } from "node:path";
import { VERSION } from "../version.js";
import type { Check } from "./context.js";
import { findCopies, type InstalledCopy } from "./node-modules.js";
import { ownOtelApiVersion, registeredOtelApiVersion, usesRegisteredGlobals } from "./otel-api-version.js";
import type { DoctorFinding } from "./types.js";

const REGISTRY = Symbol.for("evaltrace.registry");

/** What two installed versions of each package break, and how to see who pulls them in. */
const WHY: Readonly<Record<string, string>> = {
  "@opentelemetry/api": "a copy newer than the one that registers OpenTelemetry's globals first sees no tracer provider and no context: its spans are lost or lose their parent",
  evaltrace: "each version keeps its own configuration and queue: configure() in one does not reach the other",
};

function list(cwd: string, copies: InstalledCopy[]): string {
  const shown = copies.slice(0, 4).map((c) => `${c.version} at ${relative(cwd, c.dir) || "."}`);
  return shown.join(", ") + (copies.length > 4 ? `, and ${copies.length - 4} more` : "");
}

/**
 * Two versions of `@opentelemetry/api` or of evaltrace in the app's tree; in the app, also the
 * API copy that registered OpenTelemetry's globals (a newer one than ours leaves ours blind) and
 * a second evaltrace version loaded in the process.
 */
export const checkDuplicates: Check = async (ctx) => {
  const check = "duplicates" as const;
  const findings: DoctorFinding[] = [];
  const { copies, complete } = await findCopies(ctx.cwd, Object.keys(WHY));
  for (const [name, found] of copies) {
    const versions = [...new Set(found.map((c) => c.version))];
    if (versions.length > 1) {
      findings.push({
        check,
        ok: false,
        severity: "warning",
        message: `${versions.length} versions of ${name} are installed (${list(ctx.cwd, found)}): ${WHY[name]}`,
        fix: `npm ls ${name} shows who needs which; align them (npm dedupe, or an "overrides" entry in package.json)`,
      });
    } else if (found.length > 0) {
      findings.push({ check, ok: true, severity: "info", message: `one version of ${name} installed (${versions[0]}${found.length > 1 ? `, ${found.length} copies` : ""})` });
    }
  }
  if (!complete) findings.push({ check, ok: true, severity: "info", message: "node_modules is very large: only part of it was searched for copies" });
  if (ctx.inApp) {
    const registered = registeredOtelApiVersion();
    const own = await ownOtelApiVersion();
    if (registered && own && !usesRegisteredGlobals(own, registered)) {
      findings.push({
        check,
        ok: false,
        severity: "error",
        message: `OpenTelemetry's globals were registered by @opentelemetry/api ${registered}, which evaltrace's copy (${own}) cannot use: the app's context and tracer provider are invisible to evaltrace`,
        fix: `install one @opentelemetry/api >= ${own} for the whole app (npm ls @opentelemetry/api; an "overrides" entry)`,
      });
    }
    const loaded = (globalThis as { [REGISTRY]?: { version?: string } })[REGISTRY]?.version;
    if (loaded !== undefined && loaded !== VERSION) {
      findings.push({
        check,
        ok: false,
        severity: "warning",
        message: `two versions of evaltrace are loaded in this process (${loaded} and ${VERSION}): each keeps its own configuration and queue`,
        fix: "deduplicate them (npm dedupe, or one version in package.json)",
      });
    }
  }
  if (findings.length === 0) findings.push({ check, ok: true, severity: "info", message: "neither @opentelemetry/api nor evaltrace found installed under the app's directory" });
  return findings;
};
