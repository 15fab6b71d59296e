import { usageError } from "./args.js";

/** The dev kit's package: the emulator, its viewer and the fake model servers live there, not in `evaltrace`. */
export const DEV_KIT = "@evaltrace/dev";

/** What `@evaltrace/dev/cli` exports (src/cli/dev.ts, built into the dev kit). */
interface DevKitCli {
  dev(rest: string[]): Promise<number>;
}

/** Whether `err` says that the dev kit itself is not installed (and not that something inside it failed to load). */
function devKitMissing(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && typeof e.message === "string" && e.message.includes(`'${DEV_KIT}`);
}

/**
 * `evaltrace dev`: the emulator, from the dev kit. A production install carries only the SDK,
 * so the kit is a package of its own, a devDependency; without it, one line says what to install.
 */
export async function dev(rest: string[]): Promise<number> {
  let kit: DevKitCli;
  try {
    // A specifier in a variable: the bundler leaves it to Node, which resolves it from the app.
    const specifier = `${DEV_KIT}/cli`;
    kit = (await import(specifier)) as DevKitCli;
  } catch (err) {
    if (!devKitMissing(err)) throw err;
    return usageError("dev", `the emulator is in the dev kit, which is not installed here: npm install --save-dev ${DEV_KIT} (or run it once with npx ${DEV_KIT})`);
  }
  return kit.dev(rest);
}
