/**
 * `evaltrace dev`, the command: the emulator until SIGINT/SIGTERM. It is the `./cli` entry of the
 * dev kit (`@evaltrace/dev`), which `evaltrace dev` loads (`./dev-kit.ts`) and `evaltrace-dev` runs.
 */
import { ENV_VARS } from "../config/env-vars.js";
import { startDevServer } from "../devserver/index.js";
import { parseCommand, usageError } from "./args.js";
import { DEFAULT_HOST, DEFAULT_PORT, devUsage } from "./dev-usage.js";
import { EXIT } from "./exit-codes.js";

const options = {
  port: { type: "string" },
  host: { type: "string" },
  plan: { type: "string" },
  data: { type: "string" },
  quiet: { type: "boolean" },
  strict: { type: "boolean" },
  "max-traces": { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "judge-url": { type: "string" },
  "judge-model": { type: "string" },
  "judge-concurrency": { type: "string" },
} as const;

/** One line for an error of `startDevServer`, by the system error code it carries. */
const startErrors: Record<string, (o: { port: number; host: string; data: string | undefined; message: string }) => string> = {
  EADDRINUSE: (o) => `port ${o.port} on ${o.host} is already in use (another evaltrace dev?); pass --port N, or --port 0 for a free one`,
  EACCES: (o) => (o.data ? `cannot use --data ${o.data}: permission denied` : `not allowed to listen on port ${o.port}; use a port above 1023`),
  EADDRNOTAVAIL: (o) => `--host ${o.host} is not an address of this machine`,
  ENOTFOUND: (o) => `--host ${o.host} does not resolve to an address`,
  ENOENT: (o) => `cannot use --data ${o.data}: its directory does not exist`,
  EISDIR: (o) => `cannot use --data ${o.data}: it is a directory; name a file in it`,
  ENOTDIR: (o) => `cannot use --data ${o.data}: a part of the path is not a directory`,
  ELOOP: (o) => `cannot use --data ${o.data}: it is a symbolic link, which is not followed; name the file itself`,
};

/** The one line that explains why the emulator did not start. */
function startFailure(err: unknown, o: { port: number; host: string; data: string | undefined }): string {
  const e = err as NodeJS.ErrnoException;
  // One line, whatever the message quotes (JSON.parse quotes the damaged text, newlines included).
  const message = (e instanceof Error ? e.message : String(err)).replace(/\s+/g, " ").trim();
  const known = e.code === undefined ? undefined : startErrors[e.code];
  if (known) return known({ ...o, message });
  if (err instanceof TypeError) return message.replace(/^startDevServer: /, "");
  // The emulator's own refusals of an unsafe data file (a symbolic link, a directory others can write) say so already.
  if (message.startsWith("cannot use --data ")) return message;
  // Anything else while a data file is named comes from reading it (a damaged journal).
  if (o.data) return `cannot use --data ${o.data}: ${message.replace(`${o.data}: `, "")} (move it aside to start empty)`;
  return message;
}

/** `evaltrace dev`: runs the emulator until SIGINT/SIGTERM. */
export async function dev(rest: string[]): Promise<number> {
  const parsed = parseCommand("dev", rest, options, `Usage: evaltrace dev [options]\n\n${devUsage}`);
  if (!parsed.ok) return parsed.code;
  const { values, positionals } = parsed;
  if (positionals.length > 0) return usageError("dev", `unexpected argument "${positionals[0]}"; see evaltrace dev --help`);
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? "0") || port > 65535) return usageError("dev", `--port must be an integer from 0 to 65535; got "${values.port}"`);
  if (values.plan !== undefined && values.plan !== "free" && values.plan !== "team") return usageError("dev", `--plan must be free or team; got "${values.plan}"`);
  const maxTraces = values["max-traces"] === undefined ? undefined : Number(values["max-traces"]);
  if (maxTraces !== undefined && (!Number.isInteger(maxTraces) || maxTraces < 1)) {
    return usageError("dev", `--max-traces must be a positive integer; got "${values["max-traces"]}"`);
  }
  if (values.data === "") return usageError("dev", "--data needs a file name");
  if (values["judge-model"] !== undefined && values["judge-url"] === undefined && !process.env.EVALTRACE_DEV_JUDGE_URL) {
    return usageError("dev", "--judge-model needs --judge-url, the judge endpoint's base URL");
  }
  if (values["judge-url"] !== undefined && values["judge-model"] === undefined && !process.env.EVALTRACE_DEV_JUDGE_MODEL) {
    return usageError("dev", "--judge-url needs --judge-model NAME, the model the judge endpoint runs");
  }
  const judgeConcurrency = values["judge-concurrency"] === undefined ? undefined : Number(values["judge-concurrency"]);
  if (judgeConcurrency !== undefined && (!Number.isInteger(judgeConcurrency) || judgeConcurrency < 1)) {
    return usageError("dev", `--judge-concurrency must be a positive integer; got "${values["judge-concurrency"]}"`);
  }
  const host = values.host ?? DEFAULT_HOST;
  let server: Awaited<ReturnType<typeof startDevServer>>;
  try {
    server = await startDevServer({
      port,
      host,
      plan: values.plan as "free" | "team" | undefined,
      dataFile: values.data,
      maxTraces,
      strict: values.strict ? true : undefined,
      allowedHosts: values["allow-host"],
      judgeUrl: values["judge-url"],
      judgeModel: values["judge-model"],
      judgeConcurrency,
      log: values.quiet ? undefined : (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
    });
  } catch (err) {
    return usageError("dev", startFailure(err, { port, host, data: values.data }));
  }
  const traces = Object.keys(server.state.traces).length;
  process.stdout.write(
    [
      `evaltrace dev: the local emulator of the service is running at ${server.url}`,
      ...server.warnings.map((w) => `  WARNING: ${w}`),
      server.loginUrl ? `  viewer (one-time login link): ${server.loginUrl}` : `  viewer:               ${server.url}/`,
      `  project API key:      ${server.projectKey}`,
      `  organization API key: ${server.orgKey} (id ${server.orgKeyId})`,
      `  plan: ${values.plan ?? "free"}; mode: ${server.strict ? "strict" : "lenient (accepts what the live service accepts; --strict to reject)"}`,
      `  judge: ${server.judgeEndpoint ?? "none: evaluations are recorded NOT_JUDGED (--judge-url URL --judge-model NAME to judge with a model)"}`,
      `  state: ${values.data ? `${values.data} (${traces} traces loaded)` : "in memory: the keys above and the traces last until this process ends (--data FILE keeps them)"}; traces kept: ${maxTraces ?? (values.data ? "all" : 10000)}, oldest evicted beyond (counted in the log)`,
      "",
      `  export ${ENV_VARS.baseUrl.name}=${server.url} ${ENV_VARS.apiKey.name}=${server.projectKey}`,
      "",
    ].join("\n"),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  return EXIT.ok;
}
