import * as nodeModule from "node:module";
import { dirname, isAbsolute, resolve } from "node:path";
import { processWide } from "../process-wide.js";
import { reportInternalError } from "../util/internal-errors.js";
import { packageOfSpecifier, packageOfUrl } from "./claims.js";

type Require = (this: unknown, id: string) => unknown;

/** What the deferred require hooks share, for the process (every copy of the package). */
interface RequireTrigger {
  /** The require hooks to make at the first `require` that may reach a claimed package, in the order they were asked for. */
  pending: (() => void)[];
  /** Packages whose modules the hooks look at. */
  packages: Set<string>;
  /** The hooks are made (the first such `require` came, or the watch could not be put in place). */
  fired: boolean;
  /** The watch on `Module.prototype.require` is in place. */
  watching: boolean;
}

const trigger = () => processWide<RequireTrigger>("auto.requireTrigger", () => ({ pending: [], packages: new Set(), fired: false, watching: false }));

/** A path's package (after its last `/node_modules/`), with Windows separators read as `/`. */
const packageOfPath = (path: string): string | undefined => packageOfUrl(path.includes("\\") ? path.replace(/\\/g, "/") : path);

/**
 * Whether `require(id)` from `parent` may load a module of one of `packages`, without resolving
 * it: a bare specifier names its package; a relative or absolute path is placed against the
 * requiring file; a package import (`#x`) or anything unreadable counts as yes. It may say yes
 * when the module is elsewhere (the hooks are then made a little early), never no for a module of
 * those packages that require-in-the-middle could name (it names a file by the package after its
 * last `node_modules`, as this does).
 */
function mayReach(id: string, parent: unknown, packages: Set<string>): boolean {
  if (typeof id !== "string") return true;
  const first = id.charCodeAt(0);
  // "." and "/" (or a Windows path): a file; "#": a package import, mapped by the package's own package.json.
  const path = first === 46 || isAbsolute(id);
  if (!path && first !== 35) {
    if (id.startsWith("node:") || nodeModule.isBuiltin(id)) return false;
    return packages.has(packageOfSpecifier(id) ?? "");
  }
  const from = (parent as { filename?: unknown } | null)?.filename;
  if (typeof from === "string" && packages.has(packageOfPath(from) ?? "")) return true;
  if (first === 35) return true;
  // `./x` from a file outside them stays in that file's folder, unless it names a node_modules folder.
  if (first === 46 && typeof from === "string" && !id.includes("..") && !id.includes("node_modules")) return false;
  const target = isAbsolute(id) ? id : typeof from === "string" ? resolve(dirname(from), id) : resolve(id);
  return packages.has(packageOfPath(target) ?? "");
}

/**
 * Asks for a require hook (require-in-the-middle's, made by `make`) on the modules of `packages`,
 * made at the first `require` that may load one of them (`mayReach`) rather than now: an app
 * whose CommonJS never reaches them (an ESM app: its libraries come through the ESM hooks) never
 * loads require-in-the-middle (and its `debug`), nor pays its resolve step on each of its
 * requires. Until then a watch on `Module.prototype.require` looks at the specifier only, and
 * hands every call on unchanged; once the hooks are made it hands on without looking. Hooks asked
 * for later are made at once; without `make`, `packages` only join those watched. Never throws
 * into a `require`.
 */
export function onFirstClaimedRequire(packages: Iterable<string>, make?: () => void): void {
  const state = trigger();
  for (const p of packages) state.packages.add(p);
  if (!make) return;
  if (state.fired) {
    run(make);
    return;
  }
  state.pending.push(make);
  if (state.watching) return;
  const proto = nodeModule.Module?.prototype as unknown as { require?: Require } | undefined;
  const original = proto?.require;
  if (!proto || typeof original !== "function") {
    fire(state);
    return;
  }
  state.watching = true;
  const watching: Require = function (this: unknown, id: string) {
    if (!state.fired) {
      let reach = true;
      try {
        reach = mayReach(id, this, state.packages);
      } catch {
        // Unreadable: the hooks are made, as if it reached one.
      }
      if (reach) {
        fire(state);
        // require-in-the-middle now wraps this function: the call goes through it (and back here, fired).
        if (proto.require !== watching && typeof proto.require === "function") return proto.require.call(this, id);
      }
    }
    return original.call(this, id);
  };
  Object.defineProperty(watching, "name", { value: original.name, configurable: true });
  proto.require = watching;
}

/** Makes the hooks asked for so far, once, in order; one that cannot be made leaves the others. */
function fire(state: RequireTrigger): void {
  if (state.fired) return;
  state.fired = true;
  for (const make of state.pending.splice(0)) run(make);
}

/** Makes one hook; one that cannot be made (require-in-the-middle missing or failing) leaves CommonJS unhooked, counted and logged. */
function run(make: () => void): void {
  try {
    make();
  } catch (error) {
    reportInternalError("zero-code require hook", error, undefined);
  }
}
