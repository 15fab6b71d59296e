import { resolve } from "node:path";
import { runDoctor } from "../doctor/doctor.js";
import { formatDoctorReport } from "../doctor/format.js";
import { parseCommand, usageError } from "./args.js";
import { EXIT } from "./exit-codes.js";

/** Usage of `evaltrace doctor`. */
export const doctorUsage = `  doctor Check the setup (key, service address, duplicate packages, integrations, module
         format, spool) and say what to fix; exit 0 when healthy, 1 otherwise
         --api-key KEY       API key to check (default: the EVALTRACE_API_KEY environment variable)
         --base-url URL      service URL to check (default: EVALTRACE_BASE_URL, else the emulator's)
         --cwd DIR           the app's directory (default: the current one)
         --timeout MS        longest wait of each request (default 2000)
         --json              the report as JSON
`;

const options = { "api-key": { type: "string" }, "base-url": { type: "string" }, cwd: { type: "string" }, timeout: { type: "string" }, json: { type: "boolean" } } as const;

/** `evaltrace doctor`: the checks that can run outside the app; exit 0 when healthy, 1 otherwise. */
export async function doctorCommand(rest: string[]): Promise<number> {
  const parsed = parseCommand("doctor", rest, options, `Usage: evaltrace doctor [options]\n\n${doctorUsage}`);
  if (!parsed.ok) return parsed.code;
  const { values, positionals } = parsed;
  if (positionals.length > 0) return usageError("doctor", `unexpected argument "${positionals[0]}"; see evaltrace doctor --help`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) return usageError("doctor", `--timeout must be a positive integer of milliseconds; got "${values.timeout}"`);
  let report: Awaited<ReturnType<typeof runDoctor>>;
  try {
    report = await runDoctor({ apiKey: values["api-key"] || undefined, baseUrl: values["base-url"], cwd: values.cwd === undefined ? undefined : resolve(values.cwd), timeoutMillis: timeout }, false);
  } catch (error) {
    if (error instanceof TypeError) return usageError("doctor", error.message.replace(/^evaltrace doctor\(\): /, "").replaceAll("`baseUrl`", "--base-url"));
    throw error;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report));
  return report.healthy ? EXIT.ok : EXIT.unhealthy;
}
