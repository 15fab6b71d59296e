import { readdir, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";

/** One installed copy of a package. */
export interface InstalledCopy {
  version: string;
  /** Its directory (symlinks resolved). */
  dir: string;
}

/** Most `node_modules` directories one search reads: a huge tree is searched in part, and says so. */
const MAX_DIRS = 20_000;

/** The `node_modules` directories Node would search from `cwd`: its own and every ancestor's. */
export function ancestorNodeModules(cwd: string): string[] {
  const out: string[] = [];
  let dir = cwd;
  for (;;) {
    out.push(join(dir, "node_modules"));
    const parent = dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** The version in `<dir>/package.json` when its name is `name`. */
export async function readVersion(dir: string, name: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
    return pkg.name === name && typeof pkg.version === "string" ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

/** What {@link findCopies} found, by package name, and whether it read the whole tree. */
export interface CopiesFound {
  copies: Map<string, InstalledCopy[]>;
  complete: boolean;
}

/**
 * Every installed copy of each of `names` in the app's tree: the `node_modules` of `cwd` and its
 * ancestors, the nested `node_modules` of every package in them (npm, yarn), and pnpm's
 * `.pnpm` store. Reads asynchronously (the event loop keeps turning) and at most
 * {@link MAX_DIRS} directories.
 */
export async function findCopies(cwd: string, names: readonly string[]): Promise<CopiesFound> {
  const copies = new Map<string, InstalledCopy[]>(names.map((n) => [n, []]));
  const seenDirs = new Set<string>();
  const seenCopies = new Set<string>();
  const queue = ancestorNodeModules(cwd);
  let read = 0;
  while (queue.length > 0) {
    if (read >= MAX_DIRS) return { copies, complete: false };
    const nm = queue.shift()!;
    let real: string;
    try {
      real = await realpath(nm);
    } catch {
      continue;
    }
    if (seenDirs.has(real)) continue;
    seenDirs.add(real);
    read++;
    for (const name of names) {
      const version = await readVersion(join(real, name), name);
      if (version === undefined) continue;
      const dir = await realpath(join(real, name)).catch(() => join(real, name));
      if (seenCopies.has(dir)) continue;
      seenCopies.add(dir);
      copies.get(name)!.push({ version, dir });
    }
    for (const entry of await entries(real)) {
      if (entry === ".bin" || entry === ".cache") continue;
      if (entry === ".pnpm") {
        for (const stored of await entries(join(real, entry))) queue.push(join(real, entry, stored, "node_modules"));
      } else if (entry.startsWith("@")) {
        for (const pkg of await entries(join(real, entry))) queue.push(join(real, entry, pkg, "node_modules"));
      } else if (!entry.startsWith(".")) {
        queue.push(join(real, entry, "node_modules"));
      }
    }
  }
  return { copies, complete: true };
}
