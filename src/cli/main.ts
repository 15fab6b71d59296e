import { VERSION } from "../version.js";
import { dev } from "./dev-kit.js";
import { devUsage } from "./dev-usage.js";
import { doctorCommand, doctorUsage } from "./doctor.js";
import { evalCommand, evalUsage } from "./eval.js";
import { EXIT } from "./exit-codes.js";
import { pushDataset, pushPrompt, pushUsage } from "./push.js";

const usage = `Usage: evaltrace <command> [options]

Commands:
${devUsage}${pushUsage}${evalUsage}${doctorUsage}
  evaltrace <command> --help    the options of one command
  evaltrace --version           the version
`;

/** The commands, by name. */
const commands: Readonly<Record<string, (rest: string[]) => Promise<number>>> = {
  dev,
  "push-dataset": pushDataset,
  "push-prompt": pushPrompt,
  eval: evalCommand,
  doctor: doctorCommand,
};

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(usage);
    return EXIT.usage;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(usage);
    return EXIT.ok;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) {
    const what = command.startsWith("-") ? `unknown option "${command}"` : `unknown command "${command}"`;
    process.stderr.write(`evaltrace: ${what}; commands: ${Object.keys(commands).join(", ")} (evaltrace --help)\n`);
    return EXIT.usage;
  }
  return run(rest);
}
