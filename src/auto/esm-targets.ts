import { readFileSync } from "node:fs";
import { normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { processWide } from "../process-wide.js";
import { reportInternalError } from "../util/internal-errors.js";
import { packageOfUrl } from "./claims.js";
import { HANDOFF_KEY } from "./esm-handoff.js";

/** What to do when one ES module of a library loads: its package's main entry, or a file in it. */
export interface EsmTarget {
  /** The package (`@langchain/core`). */
  packageName: string;
  /** A file in it, as `<package>/<path>` (`@langchain/core/dist/embeddings.js`); absent for the main entry. */
  file?: string;
  /** Versions hooked (`>=N[.N[.N]]` ranges: all the hooks use). */
  versions: readonly string[];
  /** Exports the hook may replace (`esm-handoff.ts`). */
  replaces: readonly string[];
  /** The hook, given the module's exports (a view of its namespace whose `replaces` can be assigned). */
  onLoad: (exports: Record<string, unknown>) => unknown;
}

interface Targets {
  byPackage: Map<string, EsmTarget[]>;
  /** Module URLs first resolved from their package's bare name: its main entry, as import-in-the-middle tells it. */
  mainUrls: Set<string>;
  /** Each package folder's version (undefined: unreadable). */
  versions: Map<string, string | undefined>;
}

let known: Targets | undefined;

/** The ES modules zero-code hooks without import-in-the-middle, for the process (every copy of the package). */
export function esmTargets(): Targets {
  return (known ??= processWide<Targets>("auto.esmTargets", () => {
    const made: Targets = { byPackage: new Map(), mainUrls: new Set(), versions: new Map() };
    const dispatch = (url: unknown, namespace: unknown, originals: unknown): Record<string, unknown> | undefined => handOff(made, url, namespace, originals);
    Object.defineProperty(globalThis, Symbol.for(HANDOFF_KEY), { value: dispatch, configurable: true, enumerable: false, writable: false });
    return made;
  }));
}

/** Adds one library's ES module targets. */
export function addEsmTargets(targets: readonly EsmTarget[]): void {
  const { byPackage } = esmTargets();
  for (const target of targets) {
    const list = byPackage.get(target.packageName) ?? [];
    list.push(target);
    byPackage.set(target.packageName, list);
  }
}

/** Where a module URL is: its package, that package's folder and the module's name as `<package>/<path>`. */
function locate(url: string): { packageName: string; baseDir: string; name: string } | undefined {
  const packageName = packageOfUrl(url);
  if (!packageName || !url.startsWith("file:")) return undefined;
  const file = fileURLToPath(url);
  const marker = `${sep}node_modules${sep}${packageName.split("/").join(sep)}${sep}`;
  const at = file.lastIndexOf(marker);
  if (at === -1) return undefined;
  const baseDir = file.slice(0, at + marker.length - 1);
  return { packageName, baseDir, name: packageName + sep + relative(baseDir, file) };
}

/** The targets a module URL matches (none for a module nothing hooks): a map look-up for most modules, run on each load. */
export function targetsOf(url: string): EsmTarget[] {
  const { byPackage, mainUrls } = known ?? esmTargets();
  const packageName = packageOfUrl(url);
  const list = packageName === undefined ? undefined : byPackage.get(packageName);
  if (!list) return [];
  // As import-in-the-middle names a module: its package's main entry, or else a file in it.
  if (mainUrls.has(url)) return list.filter((t) => t.file === undefined);
  const files = list.filter((t) => t.file !== undefined && url.endsWith(t.file.replace(/\\/g, "/")));
  if (files.length === 0) return files;
  const where = locate(url);
  return where ? files.filter((t) => normalize(t.file ?? "") === where.name) : [];
}

/** `>=1`, `>=0.20`, `>=0.4.2`: whether `version` is at least that (a prerelease never is, as semver's own rule has it for such ranges). */
export function versionSatisfies(version: string | undefined, ranges: readonly string[]): boolean {
  if (!version) return false;
  const parsed = /^(\d+)\.(\d+)\.(\d+)(-.*)?/.exec(version);
  if (!parsed || parsed[4]) return false;
  const have = [Number(parsed[1]), Number(parsed[2]), Number(parsed[3])];
  return ranges.some((range) => {
    const bound = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
    if (!bound) return false;
    const want = [Number(bound[1]), Number(bound[2] ?? 0), Number(bound[3] ?? 0)];
    for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return (have[i] ?? 0) > (want[i] ?? 0);
    return true;
  });
}

/** The version in a package folder's package.json (read once per folder); undefined when it cannot be read. */
export function packageVersion(baseDir: string): string | undefined {
  return versionOf(esmTargets(), baseDir);
}

function versionOf(targets: Targets, baseDir: string): string | undefined {
  if (!targets.versions.has(baseDir)) {
    let version: string | undefined;
    try {
      const read = JSON.parse(readFileSync(`${baseDir}${sep}package.json`, "utf8")) as { version?: unknown };
      version = typeof read.version === "string" ? read.version : undefined;
    } catch {
      version = undefined;
    }
    targets.versions.set(baseDir, version);
  }
  return targets.versions.get(baseDir);
}

/**
 * The appended call of a hooked module (`esm-handoff.ts`): its targets' hooks run on a view of its
 * namespace in which the exports it made replaceable can be assigned; returns what was assigned.
 * Never throws into the module.
 */
function handOff(targets: Targets, url: unknown, namespace: unknown, originals: unknown): Record<string, unknown> | undefined {
  try {
    if (typeof url !== "string" || namespace === null || typeof namespace !== "object") return undefined;
    const matched = targetsOf(url);
    if (matched.length === 0) return undefined;
    const where = locate(url);
    const version = where && versionOf(targets, where.baseDir);
    const own = originals !== null && typeof originals === "object" ? (originals as Record<string, unknown>) : {};
    const replaced: Record<string, unknown> = {};
    const view = new Proxy(namespace as Record<string, unknown>, {
      get: (target, key) => (typeof key === "string" && Object.hasOwn(replaced, key) ? replaced[key] : typeof key === "string" && Object.hasOwn(own, key) ? own[key] : Reflect.get(target, key)),
      set: (_target, key, value) => {
        if (typeof key !== "string" || !Object.hasOwn(own, key)) return false;
        replaced[key] = value;
        return true;
      },
    });
    for (const target of matched) {
      if (versionSatisfies(version, target.versions)) target.onLoad(view);
    }
    return Object.keys(replaced).length > 0 ? replaced : undefined;
  } catch (error) {
    reportInternalError("zero-code ES module hand-off", error, undefined);
    return undefined;
  }
}
