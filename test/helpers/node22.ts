import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runsHere } from "./skips.js";

/**
 * The packages the tests use that need Node 22+ (`ai` 7, `openai` 7, `@google/genai` 3,
 * `@mastra/core`...) live in test/node22/package.json, not in the root devDependencies (whose
 * `npm ci` on Node 20 must print no engine warning); `node test/node22/install.mjs` installs
 * them with a Node 22 binary (scripts/runtimes.mjs runs it before the Node 22 and 24 runs).
 */
export const node22Dir = fileURLToPath(new URL("../node22/", import.meta.url));

/** Whether test/node22 is installed (its node_modules holds npm's record of an install). */
export const node22Installed = existsSync(`${node22Dir}node_modules/.package-lock.json`);

/** `require` resolving from test/node22 (CommonJS entry points of its packages). */
export const requireNode22 = createRequire(`${node22Dir}package.json`);

/** `import()` resolving from test/node22 (ESM entry points of its packages), through a module that lives there. */
export async function importNode22(specifier: string): Promise<unknown> {
  const { load } = (await import(pathToFileURL(`${node22Dir}load.mjs`).href)) as { load: (s: string) => Promise<unknown> };
  return load(specifier);
}

/** Node flags for a child process whose bare imports fall back to test/node22's packages (an ESM resolve hook). */
export const node22ChildFlags = ["--import", pathToFileURL(`${node22Dir}register.mjs`).href];

/** Why a test that needs test/node22 does not run: the line for `runsHere`. */
export const node22Missing = "test/node22 is not installed (node test/node22/install.mjs; npm run test:runtimes runs it)";

/** `runsHere` for a test that needs Node 22+ and test/node22: says why when either is missing. */
export function runsWithNode22(available: boolean, file: string, reason: string): boolean {
  return runsHere(available, file, reason) && runsHere(node22Installed, file, node22Missing);
}
