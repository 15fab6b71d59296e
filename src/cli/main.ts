import { dev, devUsage } from "./dev.js";
import { pushDataset, pushPrompt, pushUsage } from "./push.js";

const usage = `Usage: evaltrace <command> [options]

Commands:
${devUsage}${pushUsage}`;

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      process.stderr.write(usage);
      return 1;
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(usage);
      return 0;
    case "dev":
      return dev(rest, usage);
    case "push-dataset":
      return pushDataset(rest);
    case "push-prompt":
      return pushPrompt(rest);
    default:
      process.stderr.write(`evaltrace: unknown command "${command}"\n\n${usage}`);
      return 1;
  }
}
