import { packageOfSpecifier } from "./claims.js";

/**
 * Whether a module may be one import-in-the-middle wraps for zero-code: its resolved URL is in
 * one of `packages` under a `node_modules` folder (npm's, pnpm's store, Yarn's), or its specifier
 * names one of them (a package linked from elsewhere, by its entry). Every entry of the include
 * lists (`claims.ts`) is in one of those, so a module outside them skips import-in-the-middle's
 * resolve step: a few substring tests per module instead of its URL parsing and list matching.
 * A module it lets through that the lists do not name is left alone by import-in-the-middle.
 * On Node 22's synchronous hooks the same test picks the modules whose targets are looked up for
 * the namespace hand-off (`sync-esm-hooks.ts`).
 */
export function esmScope(packages: readonly string[]): (url: string, specifier: string) => boolean {
  const names = new Set(packages);
  const folders = [...names].map((name) => `/node_modules/${name}/`);
  return (url, specifier) => {
    for (const folder of folders) if (url.includes(folder)) return true;
    return names.has(packageOfSpecifier(specifier) ?? "");
  };
}

/** A specifier or URL of import-in-the-middle's own wrapper modules (`?iitm=true`, `?iitm=bindings`): always handed to it. */
export const isWrapperUrl = (specifier: string): boolean => specifier.includes("iitm=");
