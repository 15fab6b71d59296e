import { createHash } from "node:crypto";
import type { Handler } from "../context.js";
import { badRequest } from "../http-error.js";
import { checkObject, isPlainObject, opt, req, type Shape, t } from "../schema.js";
import { newId, type PromptCommit } from "../store.js";

const schemaTypes = ["OBJECT", "ARRAY", "STRING", "FLOAT", "INTEGER", "BOOLEAN", "NULL"] as const;

/** CUSTOM plus the vendors' upper-snake-case names, which the spec omits (spec 2.6). */
const provider = (v: unknown, p: string) => {
  if (typeof v !== "string" || !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(v)) throw badRequest(`${p} must be CUSTOM or an upper-snake-case provider name`);
};

const modelSettings = t.object({
  provider: opt(provider),
  name: opt(t.string),
  temperature: opt(t.number),
  maxTokens: opt(t.nonNegativeInteger),
  topP: opt(t.number),
  topK: opt(t.nonNegativeInteger),
  frequencyPenalty: opt(t.number),
  presencePenalty: opt(t.number),
  stopSequence: opt(t.strings),
  reasoningEffort: opt(t.enumOf(["MINIMAL", "LOW", "MEDIUM", "HIGH"])),
  verbosity: opt(t.enumOf(["LOW", "MEDIUM", "HIGH"])),
});

const outputSchema = t.object({
  name: req(t.nonEmpty),
  fields: req(
    t.list(
      t.object({
        id: opt(t.string),
        name: req(t.nonEmpty),
        type: req(t.enumOf(schemaTypes)),
        required: opt(t.boolean),
        parentId: opt(t.nullable(t.string)),
      }),
    ),
  ),
});

const tool = t.object({
  id: opt(t.string),
  name: req(t.nonEmpty),
  description: opt(t.nullable(t.string)),
  mode: req(t.enumOf(["ALLOW_ADDITIONAL", "NO_ADDITIONAL", "STRICT"])),
  structuredSchema: req(
    t.object({
      id: opt(t.string),
      name: opt(t.nullable(t.string)),
      fields: req(
        t.list(
          t.object({
            id: req(t.nonEmpty),
            name: opt(t.nullable(t.string)),
            description: opt(t.nullable(t.string)),
            type: req(t.enumOf(schemaTypes)),
            required: opt(t.boolean),
            parentId: opt(t.nullable(t.string)),
          }),
        ),
      ),
    }),
  ),
});

const promptShape: Shape = {
  alias: req(t.nonEmpty),
  text: opt(t.string),
  messages: opt(t.list(t.object({ role: req(t.enumOf(["user", "assistant", "system", "developer"])), content: req(t.string) }), { nonEmpty: true })),
  interpolationType: opt(t.enumOf(["MUSTACHE", "MUSTACHE_WITH_SPACE", "FSTRING", "DOLLAR_BRACKETS", "JINJA"])),
  modelSettings: opt(modelSettings),
  outputType: opt(t.enumOf(["TEXT", "JSON", "SCHEMA"])),
  outputSchema: opt(outputSchema),
  tools: opt(t.list(tool)),
  branch: opt(t.nonEmpty),
};

/** `POST /v2/prompts` (spec 4.8): a commit on a branch; the prompt and branch are created as needed. */
export const pushPrompt: Handler = (ctx) => {
  checkObject(ctx.body, promptShape, "body");
  const body = ctx.body as Record<string, unknown>;
  if (body.text !== undefined && body.messages !== undefined) throw badRequest("body: give text or messages, not both (spec 7 rule 5)");
  if (body.text === undefined && body.messages === undefined) throw badRequest("body.text or body.messages is required");
  if (body.outputType === "SCHEMA" && body.outputSchema === undefined) throw badRequest("body.outputSchema is required when outputType is SCHEMA");
  if (body.outputSchema !== undefined && body.outputType !== "SCHEMA") throw badRequest("body.outputSchema is used only when outputType is SCHEMA");
  const alias = body.alias as string;
  const branch = (body.branch as string | undefined) ?? "main";
  const prompts = ctx.state.prompts;
  const prompt = (prompts[alias] ??= { id: newId(ctx.state, "prompt"), alias, branches: { main: [] }, commits: {} });
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
  return { body: { success: true, data: { promptId: prompt.id, hash }, link: `${ctx.baseUrl}/#/prompts/${encodeURIComponent(alias)}`, deprecated: false } };
};
