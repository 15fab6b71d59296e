import { EvaltraceError, ValidationError } from "../client/errors.js";
import type { DatasetPush, PromptPush } from "../protocol/types.js";
import { parseCommand, usageError } from "./args.js";
import { clientOf, connectionOf, connectionUsage, unreachable } from "./connection.js";
import { EXIT } from "./exit-codes.js";
import { InputError, readGoldens, readPrompt } from "./files.js";
import { progressBar } from "./progress.js";
import { INTERPOLATION_TYPES, type InterpolationType } from "../prompts/interpolate.js";
import { jinjaProblem, placeholderMismatch, templatesOf } from "../prompts/template-check.js";

const connection = connectionUsage(20);

/** Usage of `evaltrace push-dataset`. */
export const pushDatasetUsage = `  push-dataset --alias A FILE     Push goldens from FILE (.json, .jsonl or .csv) to dataset A
         --version V         dataset version to push onto (Team plan)
         --finalized BOOL    mark the goldens finalized (default true)
         --chunk-size N      goldens per request (default 500)
${connection}`;

/** Usage of `evaltrace push-prompt`. */
export const pushPromptUsage = `  push-prompt --alias A FILE      Push a prompt commit: FILE is .json (a push body or a list of
                                  messages) or text
         --branch B          branch to commit to (default main)
         --interpolation-type T
                             MUSTACHE, MUSTACHE_WITH_SPACE, FSTRING (the service's default),
                             DOLLAR_BRACKETS or JINJA: how the template marks its variables
${connection}`;

/** Usage of both push commands. */
export const pushUsage = pushDatasetUsage + pushPromptUsage;

const common = { "api-key": { type: "string" }, "base-url": { type: "string" }, alias: { type: "string" } } as const;

/** Names the line or row behind `body.goldens[i]` in a validation message. */
function locate(message: string, where: string[], file: string): string {
  return message.replace(/body\.goldens\[(\d+)\]/, (m, i: string) => `${file} ${where[Number(i)] ?? m} (${m})`);
}

/** Runs a push; input problems exit 1, rejections by the service 2, no answer from it 3, one line each. */
async function run(command: string, action: (sentTo: (baseUrl: string) => void) => Promise<number>): Promise<number> {
  let baseUrl = "";
  try {
    return await action((url) => {
      baseUrl = url;
    });
  } catch (err) {
    if (err instanceof InputError || err instanceof ValidationError) return usageError(command, err.message);
    if (err instanceof EvaltraceError && err.code === "configuration") return usageError(command, err.message);
    const code = unreachable(command, baseUrl, err);
    if (code !== undefined) return code;
    if (err instanceof EvaltraceError) {
      process.stderr.write(`evaltrace ${command}: ${err.message}\n`);
      return EXIT.rejected;
    }
    throw err;
  }
}

/** `evaltrace push-dataset`. */
export function pushDataset(args: string[]): Promise<number> {
  return run("push-dataset", async (sentTo) => {
    const parsed = parseCommand(
      "push-dataset",
      args,
      { ...common, version: { type: "string" }, finalized: { type: "string" }, "chunk-size": { type: "string" } },
      `Usage: evaltrace push-dataset --alias A FILE [options]\n\n${pushDatasetUsage}`,
    );
    if (!parsed.ok) return parsed.code;
    const { values, positionals } = parsed;
    if (!values.alias) return usageError("push-dataset", "--alias is required; see evaltrace push-dataset --help");
    if (positionals.length !== 1) return usageError("push-dataset", `give exactly one FILE; got ${positionals.length}`);
    if (values.finalized !== undefined && !["true", "false"].includes(values.finalized)) return usageError("push-dataset", "--finalized must be true or false");
    const chunkSize = values["chunk-size"] === undefined ? 500 : Number(values["chunk-size"]);
    if (!Number.isInteger(chunkSize) || chunkSize < 1) return usageError("push-dataset", "--chunk-size must be a positive integer");
    const file = positionals[0]!;
    const { goldens, where } = readGoldens(file);
    if (goldens.length === 0) return usageError("push-dataset", `${file} has no goldens`);
    const connection = connectionOf("push-dataset", values);
    if (typeof connection === "number") return connection;
    sentTo(connection.baseUrl);
    const client = clientOf(connection);
    const push = { alias: values.alias, goldens, finalized: values.finalized !== "false", version: values.version } as unknown as DatasetPush;
    const bar = goldens.length > chunkSize ? progressBar(`pushing to ${values.alias}`) : undefined;
    try {
      const result = await client.datasets.push(push, { chunkSize, onProgress: ({ pushed, total }) => bar?.update(pushed, total) });
      process.stdout.write(`pushed ${result.pushed} golden(s) to dataset ${values.alias} (${result.datasetId}) in ${result.requests} request(s)\n${result.link}\n`);
      return EXIT.ok;
    } catch (err) {
      if (err instanceof ValidationError) return usageError("push-dataset", locate(err.message, where, file));
      throw err;
    } finally {
      await client.close();
    }
  });
}

/** `evaltrace push-prompt`. */
export function pushPrompt(args: string[]): Promise<number> {
  return run("push-prompt", async (sentTo) => {
    const parsed = parseCommand(
      "push-prompt",
      args,
      { ...common, branch: { type: "string" }, "interpolation-type": { type: "string" } },
      `Usage: evaltrace push-prompt --alias A FILE [options]\n\n${pushPromptUsage}`,
    );
    if (!parsed.ok) return parsed.code;
    const { values, positionals } = parsed;
    if (!values.alias) return usageError("push-prompt", "--alias is required; see evaltrace push-prompt --help");
    if (positionals.length !== 1) return usageError("push-prompt", `give exactly one FILE; got ${positionals.length}`);
    const file = positionals[0]!;
    const flagType = values["interpolation-type"]?.toUpperCase();
    if (flagType !== undefined && !INTERPOLATION_TYPES.includes(flagType as InterpolationType)) {
      return usageError("push-prompt", `--interpolation-type must be one of ${INTERPOLATION_TYPES.join(", ")}; got ${values["interpolation-type"]}`);
    }
    const body = readPrompt(file);
    if (flagType !== undefined && body.interpolationType !== undefined && body.interpolationType !== flagType) {
      return usageError("push-prompt", `${file} sets "interpolationType": ${JSON.stringify(body.interpolationType)} and --interpolation-type says ${flagType}: give one`);
    }
    const prompt = {
      ...body,
      ...(flagType !== undefined ? { interpolationType: flagType } : {}),
      alias: values.alias,
      ...(values.branch ? { branch: values.branch } : {}),
    } as PromptPush;
    const templateError = checkTemplates(file, prompt);
    if (templateError !== undefined) return usageError("push-prompt", templateError);
    const connection = connectionOf("push-prompt", values);
    if (typeof connection === "number") return connection;
    sentTo(connection.baseUrl);
    const client = clientOf(connection);
    try {
      const result = await client.prompts.push(prompt);
      process.stdout.write(`pushed commit ${result.hash} to prompt ${values.alias} (${result.promptId}) on ${values.branch ?? "main"}\n${result.link}\n`);
      return EXIT.ok;
    } finally {
      await client.close();
    }
  });
}

/**
 * The template checks before a push: a JINJA template that does not parse is an input error;
 * placeholders written for another interpolation type are one warning on stderr (the push goes
 * on: the text may mean its braces literally).
 */
function checkTemplates(file: string, prompt: PromptPush): string | undefined {
  const type = (prompt.interpolationType ?? "FSTRING") as InterpolationType;
  const templates = templatesOf(prompt as { text?: unknown; messages?: unknown });
  if (type === "JINJA") {
    let problem: string | undefined;
    try {
      problem = jinjaProblem(templates);
    } catch (err) {
      // Without the engine the template cannot be checked here: said, not fatal.
      process.stderr.write(`evaltrace push-prompt: warning: the JINJA template was not checked: ${(err as Error).message}\n`);
      return undefined;
    }
    return problem === undefined ? undefined : `${file}: ${problem}`;
  }
  const mismatch = placeholderMismatch(type, templates);
  if (mismatch !== undefined) process.stderr.write(`evaltrace push-prompt: warning: ${file}: ${mismatch}\n`);
  return undefined;
}
