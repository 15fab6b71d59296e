import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { consoleLogger, type Logger } from "../logger.js";
import { ownFile } from "../util/own-file.js";

/**
 * The package that carries zero-code's module hooks (`import-in-the-middle`,
 * `require-in-the-middle`, and `@opentelemetry/sdk-trace-base` for the AI SDK's spans): installed beside evaltrace by those who use
 * zero-code only, so that a production install of evaltrace does not carry them.
 */
export const ZERO_CODE_PACKAGE = "@evaltrace/auto";

/** Where the hooks' packages are found: a `require` and the file URL that resolves as it does. */
export interface HookDependencies {
  require: NodeJS.Require;
  /** The carrier's package.json, as a file URL: the parent URL of `module.register`. */
  parentUrl: string;
}

let found: HookDependencies | null | undefined;
let told = false;

/**
 * The hooks' packages, resolved from `@evaltrace/auto` (an optional peer of evaltrace, so every
 * package manager makes it resolvable from here when it is installed); undefined when it is not.
 */
export function hookDependencies(): HookDependencies | undefined {
  if (found === undefined) {
    try {
      const manifest = createRequire(ownFile()).resolve(`${ZERO_CODE_PACKAGE}/package.json`);
      found = { require: createRequire(manifest), parentUrl: pathToFileURL(manifest).href };
    } catch {
      found = null;
    }
  }
  return found ?? undefined;
}

/** Says once, as an error, that zero-code cannot run here and what to install. Never throws. */
export function reportMissingHooks(logger: Logger | undefined): void {
  if (told) return;
  told = true;
  try {
    (logger ?? consoleLogger()).error(
      `zero-code tracing needs ${ZERO_CODE_PACKAGE}, which is not installed: npm install ${ZERO_CODE_PACKAGE} (the same version as evaltrace); until then no library is instrumented and the app runs untraced`,
    );
  } catch {
    // Reporting must not break the app.
  }
}
