import { createHash } from "node:crypto";
import type { Handler } from "../context.js";
import { checkPromptPush } from "../../protocol/requests.js";
import { isPlainObject } from "../../protocol/schema.js";
import { dict } from "../store/dict.js";
import { newId, type PromptCommit } from "../store/store.js";

/** `POST /v2/prompts` (spec 4.8): a commit on a branch; the prompt and branch are created as needed. */
export const pushPrompt: Handler = (ctx) => {
  checkPromptPush(ctx.body);
  const body = ctx.body as Record<string, unknown>;
  const alias = body.alias as string;
  const branch = (body.branch as string | undefined) ?? "main";
  const prompts = ctx.state.prompts;
  const prompt = (prompts[alias] ??= { id: newId(ctx.state, "prompt"), alias, branches: Object.assign(dict<string[]>(), { main: [] }), commits: dict() });
  // A new branch starts from main's history.
  const history = (prompt.branches[branch] ??= [...(prompt.branches.main ?? [])]);
  const { alias: _a, branch: _b, ...content } = body;
  content.interpolationType ??= "FSTRING";
  if (Array.isArray(content.tools)) {
    content.tools = content.tools.map((tl) => {
      const tt = tl as Record<string, unknown>;
      const schema = isPlainObject(tt.structuredSchema) ? tt.structuredSchema : {};
      return { ...tt, id: newId(ctx.state, "tool"), structuredSchema: { name: null, ...schema, id: newId(ctx.state, "schema") } };
    });
  }
  const parent = history.at(-1) ?? null;
  const hash = createHash("sha256").update(JSON.stringify([alias, branch, parent, content, ctx.state.seq])).digest("hex").slice(0, 16);
  ctx.state.seq++;
  const commit: PromptCommit = { hash, parent, branch, createdAt: new Date(ctx.now).toISOString(), content };
  prompt.commits[hash] = commit;
  history.push(hash);
  ctx.changed.prompts.add(alias);
  return { body: { success: true, data: { promptId: prompt.id, hash }, link: `${ctx.baseUrl}/#/prompts/${encodeURIComponent(alias)}`, deprecated: false } };
};
