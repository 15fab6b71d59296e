import { parseArgs } from "node:util";
import { Client } from "../client/client.js";
import { EvaltraceError, ValidationError } from "../client/errors.js";
import type { DatasetPush, PromptPush } from "../client/types.js";
import { InputError, readGoldens, readPrompt } from "./files.js";
import { progressBar } from "./progress.js";

export const pushUsage = `  push-dataset --alias A FILE     Push goldens from FILE (.json, .jsonl or .csv) to dataset A
         --version V         dataset version to push onto (Team plan)
         --finalized BOOL    mark the goldens finalized (default true)
         --chunk-size N      goldens per request (default 500)
  push-prompt --alias A FILE      Push a prompt commit: FILE is .json (a push body or a list of
                                  messages) or text
         --branch B          branch to commit to (default main)
  Both take --api-key and --base-url, or read SERVICE_API_KEY and SERVICE_BASE_URL.
`;

const common = { "api-key": { type: "string" }, "base-url": { type: "string" }, alias: { type: "string" } } as const;

function fail(command: string, message: string): number {
  process.stderr.write(`evaltrace ${command}: ${message}\n`);
  return 1;
}

/** Names the line or row behind `body.goldens[i]` in a validation message. */
function locate(message: string, where: string[], file: string): string {
  return message.replace(/body\.goldens\[(\d+)\]/, (m, i: string) => `${file} ${where[Number(i)] ?? m} (${m})`);
}

async function run(command: string, action: () => Promise<number>): Promise<number> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof InputError) return fail(command, err.message);
    if (err instanceof ValidationError) return fail(command, err.message);
    if (err instanceof EvaltraceError) {
      process.stderr.write(`evaltrace ${command}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

export function pushDataset(args: string[]): Promise<number> {
  return run("push-dataset", async () => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...common, version: { type: "string" }, finalized: { type: "string" }, "chunk-size": { type: "string" } },
    });
    if (!values.alias) return fail("push-dataset", "--alias is required");
    if (positionals.length !== 1) return fail("push-dataset", "give exactly one FILE");
    if (values.finalized !== undefined && !["true", "false"].includes(values.finalized)) return fail("push-dataset", "--finalized must be true or false");
    const chunkSize = values["chunk-size"] === undefined ? 500 : Number(values["chunk-size"]);
    if (!Number.isInteger(chunkSize) || chunkSize < 1) return fail("push-dataset", "--chunk-size must be a positive integer");
    const file = positionals[0]!;
    const { goldens, where } = readGoldens(file);
    if (goldens.length === 0) return fail("push-dataset", `${file} has no goldens`);
    const client = new Client({ apiKey: values["api-key"], baseUrl: values["base-url"] });
    const push = { alias: values.alias, goldens, finalized: values.finalized !== "false", version: values.version } as unknown as DatasetPush;
    const bar = goldens.length > chunkSize ? progressBar(`pushing to ${values.alias}`) : undefined;
    try {
      const result = await client.datasets.push(push, { chunkSize, onProgress: ({ pushed, total }) => bar?.update(pushed, total) });
      process.stdout.write(`pushed ${result.pushed} golden(s) to dataset ${values.alias} (${result.datasetId}) in ${result.requests} request(s)\n${result.link}\n`);
      return 0;
    } catch (err) {
      if (err instanceof ValidationError) return fail("push-dataset", locate(err.message, where, file));
      throw err;
    } finally {
      await client.close();
    }
  });
}

export function pushPrompt(args: string[]): Promise<number> {
  return run("push-prompt", async () => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...common, branch: { type: "string" } } });
    if (!values.alias) return fail("push-prompt", "--alias is required");
    if (positionals.length !== 1) return fail("push-prompt", "give exactly one FILE");
    const prompt = { ...readPrompt(positionals[0]!), alias: values.alias, ...(values.branch ? { branch: values.branch } : {}) } as PromptPush;
    const client = new Client({ apiKey: values["api-key"], baseUrl: values["base-url"] });
    try {
      const result = await client.prompts.push(prompt);
      process.stdout.write(`pushed commit ${result.hash} to prompt ${values.alias} (${result.promptId}) on ${values.branch ?? "main"}\n${result.link}\n`);
      return 0;
    } finally {
      await client.close();
    }
  });
}
