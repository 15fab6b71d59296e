import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { ownFile } from "../util/own-file.js";
import type { Check } from "./context.js";
import type { DoctorFinding } from "./types.js";

/** The oldest Node the package supports (package.json `engines`; module.register and require(esm) fixes). */
const MIN_NODE: readonly [number, number] = [20, 19];

/** The nearest package.json from `cwd` upward, with its path. */
async function nearestPackage(cwd: string): Promise<{ path: string; type?: unknown; main?: unknown } | undefined> {
  let dir = cwd;
  for (;;) {
    const path = join(dir, "package.json");
    try {
      const pkg = JSON.parse(await readFile(path, "utf8")) as { type?: unknown; main?: unknown };
      return { path, type: pkg.type, main: pkg.main };
    } catch {
      // none here (or unreadable): go up
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Which build of evaltrace runs this code: the ESM one, the CommonJS one, or the sources (tests). */
export function loadedBuild(file = ownFile()): "ESM" | "CommonJS" | "source" {
  if (file.endsWith(".cjs")) return "CommonJS";
  if (file.endsWith(".js") || file.endsWith(".mjs")) return "ESM";
  return "source";
}

/** Whether `version` (process.versions.node) is older than the package supports. */
export function olderNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

/**
 * The app's module format (package.json `type`, and `main`'s extension), which build of evaltrace
 * the doctor itself runs in, and a Node recent enough for the module hooks.
 */
export const checkModuleFormat: Check = async (ctx) => {
  const check = "module-format" as const;
  const findings: DoctorFinding[] = [];
  const pkg = await nearestPackage(ctx.cwd);
  const build = loadedBuild();
  const runner = ctx.inApp ? `evaltrace runs as its ${build} build here` : "the doctor ran from the command line";
  if (!pkg) {
    findings.push({ check, ok: false, severity: "warning", message: `no package.json in ${ctx.cwd} or above: this does not look like the app's directory`, fix: "run the doctor from the app's directory (or pass --cwd <dir>)" });
  } else {
    const main = typeof pkg.main === "string" ? pkg.main : "";
    const esm = pkg.type === "module";
    const where = relative(ctx.cwd, pkg.path) || "package.json";
    const type = pkg.type === undefined ? 'no "type"' : `"type": ${JSON.stringify(pkg.type)}`;
    // An extension decides for its own file: a main that says otherwise is named.
    const other = esm ? main.endsWith(".cjs") : main.endsWith(".mjs");
    const mainNote = other ? `; its "main" ${JSON.stringify(main)} is ${esm ? "CommonJS" : "an ES module"}` : "";
    findings.push({ check, ok: true, severity: "info", message: `the app is ${esm ? "ES modules" : "CommonJS"} (${where} has ${type}${mainNote}); ${runner}` });
  }
  const bun = (process.versions as { bun?: string }).bun;
  if (!bun && olderNode(process.versions.node)) {
    findings.push({
      check,
      ok: false,
      severity: "error",
      message: `Node ${process.versions.node} is older than evaltrace supports (>= ${MIN_NODE.join(".")}): module hooks and require() of ES modules misbehave`,
      fix: `use Node ${MIN_NODE.join(".")} or newer`,
    });
  }
  return findings;
};
