import type { Handler, RouteContext } from "../context.js";
import { badRequest, HttpError } from "../http-error.js";
import { checkFields } from "../lenient.js";
import { opt, req, t } from "../../protocol/schema.js";
import { dict } from "../store/dict.js";
import type { PromptCommit, PromptRecord, PromptVersion } from "../store/store.js";

// The read side of prompts is not in the spec; these are the paths and the answer of the
// vendor's open-source SDKs (deepeval: `confident/api.py` Endpoints, `prompt/api.py`
// PromptHttpResponse; the same paths in its TypeScript SDK), served from the pushed commits.

function promptOf(ctx: RouteContext): PromptRecord {
  const prompt = ctx.state.prompts[ctx.params.alias ?? ""];
  if (!prompt) throw new HttpError(404, `no prompt with alias ${ctx.params.alias}`);
  return prompt;
}

/**
 * The branch named by the query: `branch` (the vendor's Python SDK), or `name` (its TypeScript
 * SDK), which strict mode rejects as off the Python SDK's contract. Other query keys: rejected
 * in strict mode, noted otherwise.
 */
function branchOf(ctx: RouteContext, allowed: readonly string[]): string | undefined {
  for (const key of ctx.query.keys()) {
    if (allowed.includes(key) || key === "name") continue;
    if (ctx.strict) throw badRequest(`unknown query parameter ${key}`);
    ctx.note(`ignored unknown query parameter ${key} (strict mode rejects it)`);
  }
  const name = ctx.query.get("name");
  if (name !== null && ctx.strict) throw badRequest("query parameter name: the branch is given as ?branch= (strict mode)");
  if (name !== null) ctx.note("read the branch from ?name= (strict mode takes only ?branch=)");
  const branch = ctx.query.get("branch") ?? name;
  return branch === null || branch === "" ? undefined : branch;
}

/** The answer for one commit: the vendor's PromptHttpResponse fields. */
function answer(prompt: PromptRecord, commit: PromptCommit, extra: { version: string | null; label: string | null }) {
  const c = commit.content;
  const text = typeof c.text === "string" ? c.text : null;
  return {
    success: true,
    data: {
      id: prompt.id,
      hash: commit.hash,
      version: extra.version,
      label: extra.label,
      branch: commit.branch,
      type: text !== null ? "TEXT" : "LIST",
      text,
      messages: text !== null ? null : (c.messages ?? null),
      interpolationType: c.interpolationType ?? "FSTRING",
      modelSettings: c.modelSettings ?? null,
      outputType: c.outputType ?? null,
      outputSchema: c.outputSchema ?? null,
      tools: c.tools ?? null,
    },
  };
}

/** The newest commit of a branch (`main` when none is named). */
function headOf(prompt: PromptRecord, branch: string): PromptCommit {
  const history = prompt.branches[branch];
  if (!history) throw new HttpError(404, `prompt ${prompt.alias} has no branch ${branch}`);
  const hash = history.at(-1);
  if (hash === undefined) throw new HttpError(404, `prompt ${prompt.alias} has no commit on branch ${branch}`);
  return prompt.commits[hash]!;
}

/** `GET /v1/prompts/:alias/commits/:hash` (`latest`: the newest commit of `?branch=`, else main). */
export const readPromptCommit: Handler = (ctx) => {
  const prompt = promptOf(ctx);
  const branch = branchOf(ctx, ["branch"]);
  const hash = ctx.params.hash ?? "latest";
  if (hash === "latest") return { body: answer(prompt, headOf(prompt, branch ?? "main"), { version: null, label: null }) };
  const commit = prompt.commits[hash];
  if (!commit) throw new HttpError(404, `prompt ${prompt.alias} has no commit ${hash}`);
  if (branch !== undefined && !prompt.branches[branch]?.includes(hash)) throw new HttpError(404, `commit ${hash} is not on branch ${branch} of prompt ${prompt.alias}`);
  return { body: answer(prompt, commit, { version: null, label: null }) };
};

function versionOf(prompt: PromptRecord, version: string): PromptVersion {
  const versions = prompt.versions ?? [];
  const found = version === "latest" ? versions.at(-1) : versions.find((v) => v.version === version);
  if (!found) throw new HttpError(404, version === "latest" ? `prompt ${prompt.alias} has no version yet` : `prompt ${prompt.alias} has no version ${version}`);
  return found;
}

/** `GET /v1/prompts/:alias/versions/:version` (`latest`: the newest version). */
export const readPromptVersion: Handler = (ctx) => {
  const prompt = promptOf(ctx);
  branchOf(ctx, []);
  const v = versionOf(prompt, ctx.params.version ?? "latest");
  return { body: answer(prompt, prompt.commits[v.hash]!, { version: v.version, label: null }) };
};

/** `GET /v1/prompts/:alias/labels/:label`: the version the label points to. */
export const readPromptLabel: Handler = (ctx) => {
  const prompt = promptOf(ctx);
  branchOf(ctx, []);
  const label = ctx.params.label ?? "";
  const version = prompt.labels?.[label];
  if (version === undefined) throw new HttpError(404, `prompt ${prompt.alias} has no label ${label}`);
  const v = versionOf(prompt, version);
  return { body: answer(prompt, prompt.commits[v.hash]!, { version: v.version, label }) };
};

/** The vendor's version numbers: `00.00.01`, `00.00.02` ... */
function versionNumber(n: number): string {
  const two = (x: number) => String(x).padStart(2, "0");
  return `${two(Math.floor(n / 10000))}.${two(Math.floor(n / 100) % 100)}.${two(n % 100)}`;
}

/**
 * `POST /v1/prompts/:alias/versions` `{hash?}` (the vendor SDKs' `create_version`): releases a
 * commit (the newest of main when no hash is given) as the next version.
 */
export const releasePromptVersion: Handler = (ctx) => {
  const prompt = promptOf(ctx);
  checkFields(ctx.body, { hash: opt(t.nonEmpty) }, { hash: opt(t.nonEmpty) }, "body", ctx);
  const hash = (ctx.body as { hash?: string }).hash;
  const commit = hash === undefined || hash === "latest" ? headOf(prompt, "main") : prompt.commits[hash];
  if (!commit) throw new HttpError(404, `prompt ${prompt.alias} has no commit ${hash}`);
  const versions = (prompt.versions ??= []);
  const version = versionNumber(versions.length + 1);
  versions.push({ version, hash: commit.hash, createdAt: new Date(ctx.now).toISOString() });
  ctx.changed.prompts.add(prompt.alias);
  return { body: { success: true, data: { version, hash: commit.hash } } };
};

/**
 * `PUT /v1/prompts/:alias/labels/:label` `{version}`: points a label at a version. The emulator's
 * own stand-in for the platform's page where labels are set (no SDK path sets one).
 */
export const setPromptLabel: Handler = (ctx) => {
  const prompt = promptOf(ctx);
  checkFields(ctx.body, { version: req(t.nonEmpty) }, { version: req(t.nonEmpty) }, "body", ctx);
  const v = versionOf(prompt, (ctx.body as { version: string }).version);
  const label = ctx.params.label ?? "";
  (prompt.labels ??= dict())[label] = v.version;
  ctx.changed.prompts.add(prompt.alias);
  return { body: { success: true, data: { label, version: v.version, hash: v.hash } } };
};
