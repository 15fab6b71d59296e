import { existsSync, realpathSync } from "node:fs";
import { delimiter, dirname, join, sep } from "node:path";

/**
 * Which of `packages` the app can load: each one whose `node_modules/<name>/package.json` is in
 * a folder Node's resolution walks from the app's script or the working directory (or in
 * `NODE_PATH`). A few `stat` calls, where resolving each would read and parse package manifests.
 * Under Yarn Plug'n'Play there is no `node_modules` to look in: every package counts as installed.
 */
export function installedPackages(packages: readonly string[], from: readonly string[] = appDirectories()): string[] {
  if ((process.versions as { pnp?: string }).pnp) return [...packages];
  const candidates = new Set<string>();
  for (const start of from) {
    for (let dir = start; ; dir = dirname(dir)) {
      candidates.add(join(dir, "node_modules"));
      if (dirname(dir) === dir) break;
    }
  }
  for (const extra of (process.env.NODE_PATH ?? "").split(delimiter)) if (extra) candidates.add(extra);
  // Only the folders that exist are looked in (an app has one or two of the dozen its path
  // passes), each package's manifest by its joined name (no path normalized per look).
  const roots = [...candidates].filter((root) => existsSync(root)).map((root) => root + sep);
  return packages.filter((name) => roots.some((root) => existsSync(`${root}${name}${sep}package.json`)));
}

/** Where the app's packages resolve from: its main script's folder and the working directory. */
function appDirectories(): string[] {
  const script = process.argv[1];
  if (!script) return [process.cwd()];
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // A script that is not a file (`node -e`, a missing path): its given folder.
  }
  return [dirname(real), process.cwd()];
}
