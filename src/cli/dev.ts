import { parseArgs } from "node:util";
import { startDevServer } from "../devserver/index.js";

export const devUsage = `  dev    Start the local emulator of the service
         --port N            port to listen on (default 4680; 0 picks a free one)
         --host ADDR         address to listen on (default 127.0.0.1); beyond loopback the viewer
                             and read API need the project key or the one-time login link
         --allow-host NAME   also answer the viewer and read API under this Host name (repeatable;
                             "*" turns the DNS-rebinding check off)
         --plan free|team    plan of the emulated project (default free)
         --data FILE         keep the state in FILE across restarts (an fsync'd journal)
         --max-traces N      keep at most N traces, evicting the oldest (default 10000 in memory,
                             unbounded with --data)
         --strict            reject what the spec does not allow (unknown fields, off-spec types,
                             the SERVICE-API-KEY spelling) instead of accepting it as the live service does
         --quiet             no request log
`;

/** `evaltrace dev`: runs the emulator until SIGINT/SIGTERM. */
export async function dev(rest: string[], usage: string): Promise<number> {
  let values: {
    port?: string;
    host?: string;
    plan?: string;
    data?: string;
    quiet?: boolean;
    strict?: boolean;
    "max-traces"?: string;
    "allow-host"?: string[];
  };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        plan: { type: "string" },
        data: { type: "string" },
        quiet: { type: "boolean" },
        strict: { type: "boolean" },
        "max-traces": { type: "string" },
        "allow-host": { type: "string", multiple: true },
      },
    }));
  } catch (err) {
    process.stderr.write(`evaltrace dev: ${(err as Error).message}\n\n${usage}`);
    return 1;
  }
  const port = values.port === undefined ? 4680 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`evaltrace dev: --port must be an integer from 0 to 65535; got "${values.port}"\n`);
    return 1;
  }
  if (values.plan !== undefined && values.plan !== "free" && values.plan !== "team") {
    process.stderr.write(`evaltrace dev: --plan must be free or team; got "${values.plan}"\n`);
    return 1;
  }
  const maxTraces = values["max-traces"] === undefined ? undefined : Number(values["max-traces"]);
  if (maxTraces !== undefined && (!Number.isInteger(maxTraces) || maxTraces < 1)) {
    process.stderr.write(`evaltrace dev: --max-traces must be a positive integer; got "${values["max-traces"]}"\n`);
    return 1;
  }
  const dev = await startDevServer({
    port,
    host: values.host,
    plan: values.plan as "free" | "team" | undefined,
    dataFile: values.data,
    maxTraces,
    strict: values.strict ? true : undefined,
    allowedHosts: values["allow-host"],
    log: values.quiet ? undefined : (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
  });
  const traces = Object.keys(dev.state.traces).length;
  process.stdout.write(
    [
      `evaltrace dev: the local emulator of the service is running at ${dev.url}`,
      ...dev.warnings.map((w) => `  WARNING: ${w}`),
      dev.loginUrl ? `  viewer (one-time login link): ${dev.loginUrl}` : `  viewer:               ${dev.url}/`,
      `  project API key:      ${dev.projectKey}`,
      `  organization API key: ${dev.orgKey} (id ${dev.orgKeyId})`,
      `  plan: ${values.plan ?? "free"}; mode: ${dev.strict ? "strict" : "lenient (accepts what the live service accepts; --strict to reject)"}`,
      `  state: ${values.data ? `${values.data} (${traces} traces loaded)` : "in memory"}; traces kept: ${maxTraces ?? (values.data ? "all" : 10000)}, oldest evicted beyond (counted in the log)`,
      "",
      `  export SERVICE_BASE_URL=${dev.url} SERVICE_API_KEY=${dev.projectKey}`,
      "",
    ].join("\n"),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await dev.close();
  return 0;
}
