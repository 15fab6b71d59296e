import { type ParseArgsConfig, parseArgs } from "node:util";
import { EXIT } from "./exit-codes.js";

/** The options table of one command, as `node:util` `parseArgs` takes it. */
export type OptionTable = NonNullable<ParseArgsConfig["options"]>;

/** What {@link parseCommand} found: the values, or the exit code to return at once. */
export type Parsed<T extends OptionTable> =
  | { ok: true; values: ReturnType<typeof parseArgs<{ options: T; allowPositionals: true }>>["values"]; positionals: string[] }
  | { ok: false; code: number };

/**
 * Parses one command's arguments. `--help`/`-h` print the command's usage and exit 0; an unknown
 * option or a missing value prints one line naming it (and where to read the usage) and exits 1:
 * never a stack trace.
 */
export function parseCommand<T extends OptionTable>(command: string, args: string[], options: T, usage: string): Parsed<T> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(usage);
    return { ok: false, code: EXIT.ok };
  }
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { ok: true, values, positionals };
  } catch (err) {
    // Node's messages are one line already ("Unknown option '--prot'. To specify a positional ...").
    const first = (err as Error).message.split(". ")[0]!.replace(/\.$/, "");
    process.stderr.write(`evaltrace ${command}: ${first}; see evaltrace ${command} --help\n`);
    return { ok: false, code: EXIT.usage };
  }
}

/** Writes `evaltrace <command>: <message>` to stderr and returns the usage exit code (1). */
export function usageError(command: string, message: string): number {
  process.stderr.write(`evaltrace ${command}: ${message}\n`);
  return EXIT.usage;
}
