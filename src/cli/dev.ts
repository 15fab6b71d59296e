import { parseArgs } from "node:util";
import { startDevServer } from "../devserver/index.js";

export const devUsage = `  dev    Start the local emulator of the service
         --port N            port to listen on (default 4680; 0 picks a free one)
         --host ADDR         address to listen on (default 127.0.0.1)
         --plan free|team    plan of the emulated project (default free)
         --data FILE         keep the state in FILE across restarts
         --quiet             no request log
`;

/** `evaltrace dev`: runs the emulator until SIGINT/SIGTERM. */
export async function dev(rest: string[], usage: string): Promise<number> {
  let values: { port?: string; host?: string; plan?: string; data?: string; quiet?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { port: { type: "string" }, host: { type: "string" }, plan: { type: "string" }, data: { type: "string" }, quiet: { type: "boolean" } },
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
  const dev = await startDevServer({
    port,
    host: values.host,
    plan: values.plan as "free" | "team" | undefined,
    dataFile: values.data,
    log: values.quiet ? undefined : (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
  });
  process.stdout.write(
    [
      `evaltrace dev: the local emulator of the service is running at ${dev.url}`,
      `  viewer:               ${dev.url}/`,
      `  project API key:      ${dev.projectKey}`,
      `  organization API key: ${dev.orgKey} (id ${dev.orgKeyId})`,
      `  plan: ${values.plan ?? "free"}; state: ${values.data ? values.data : "in memory"}`,
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
