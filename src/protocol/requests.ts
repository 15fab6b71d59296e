import { checkObject, isPlainObject, llmTestCase, opt, req, SchemaError, type Shape, t, toolCall, turn } from "./schema.js";

// Every request body rule of the spec that needs no stored state, in one place: the emulator
// enforces them (400) and the client checks them before it sends anything.

const bad = (message: string) => new SchemaError(message);

/** Test-case fields a single-turn metric may read (wire-format). */
export const evaluationParamValues = [
  "input",
  "actualOutput",
  "expectedOutput",
  "context",
  "retrievalContext",
  "toolsCalled",
  "expectedTools",
] as const;

const metricShape: Shape = {
  name: req(t.nonEmpty),
  criteria: opt(t.string),
  evaluationSteps: opt(t.list(t.any)),
  evaluationParams: opt(t.list(t.enumOf(evaluationParamValues))),
  multiTurn: req(t.boolean),
};

const populated = (v: unknown) => (typeof v === "string" ? v.trim().length > 0 : Array.isArray(v) && v.length > 0);

/** A metric as the spec requires it whole: after creation, or after an update is applied (spec 4.3, 7 rule 4). */
export function checkMetricRules(m: { criteria?: unknown; evaluationSteps?: unknown; evaluationParams?: unknown; multiTurn?: unknown }, path: string): void {
  if (!populated(m.criteria) && !populated(m.evaluationSteps)) {
    throw bad(`${path}: criteria and/or evaluationSteps must be populated (spec 7 rule 4)`);
  }
  if (m.multiTurn === false && !populated(m.evaluationParams)) {
    throw bad(`${path}.evaluationParams is required for a single-turn metric (spec 4.3)`);
  }
  if (m.multiTurn === true && m.evaluationParams !== undefined) {
    throw bad(`${path}.evaluationParams: a multi-turn metric does not take evaluationParams (spec 4.3)`);
  }
}

function checkMetric(v: unknown, path: string): void {
  if (isPlainObject(v) && "metricSettings" in v) {
    throw bad(`${path}.metricSettings: this is a metric collection body; send it to POST /v1/metric-collections`);
  }
  checkObject(v, metricShape, path);
  checkMetricRules(v, path);
}

function checkMetricList(body: unknown): void {
  checkObject(body, { metrics: req(t.list(t.any, { nonEmpty: true })) }, "body");
  const seen = new Set<string>();
  (body.metrics as unknown[]).forEach((m, i) => {
    checkMetric(m, `body.metrics[${i}]`);
    const { name, multiTurn } = m as { name: string; multiTurn: boolean };
    const key = `${name}\u0000${multiTurn}`;
    if (seen.has(key)) throw bad(`body.metrics[${i}]: a ${multiTurn ? "multi-turn" : "single-turn"} metric named "${name}" appears twice (spec 7 rule 1)`);
    seen.add(key);
  });
}

/** `POST /v1/metrics`: one metric, or `{metrics: [...]}`. Returns whether it was the list form. */
export function checkMetricCreate(body: unknown): boolean {
  if (isPlainObject(body) && "metrics" in body) {
    checkMetricList(body);
    return true;
  }
  checkMetric(body, "body");
  return false;
}

/** `POST /v1/batch-metrics`. */
export const checkBatchMetrics = checkMetricList;

/** `PUT /v1/metrics/:id`, the part that needs no stored metric. */
export function checkMetricUpdate(body: unknown): void {
  checkObject(body, { ...metricShape, name: opt(t.nonEmpty), multiTurn: opt(t.boolean) }, "body");
  const b = body as Record<string, unknown>;
  if (b.criteria !== undefined && b.evaluationSteps !== undefined && !populated(b.criteria) && !populated(b.evaluationSteps)) {
    throw bad("body: criteria and evaluationSteps cannot both be emptied (spec 7 rule 4)");
  }
  if (Array.isArray(b.evaluationParams) && b.evaluationParams.length === 0) {
    throw bad("body.evaluationParams cannot be emptied (spec 7 rule 4)");
  }
}

const metricSetting = t.object({
  metric: req(t.object({ name: req(t.nonEmpty) })),
  threshold: opt(t.range(0, 1)),
  activated: opt(t.boolean),
  includeReason: opt(t.boolean),
  strictMode: opt(t.boolean),
});

function checkSettingNames(settings: unknown[] | undefined): void {
  const names = new Set<string>();
  (settings ?? []).forEach((s, i) => {
    const name = (s as { metric: { name: string } }).metric.name;
    if (names.has(name)) throw bad(`body.metricSettings[${i}].metric.name: metric "${name}" is listed twice`);
    names.add(name);
  });
}

/**
 * `POST /v1/metric-collections`. Accepts the spec's `multiturn` misspelling, and returns the body
 * with it normalized to `multiTurn`.
 */
export function checkCollectionCreate(input: unknown): { name: string; multiTurn: boolean; metricSettings?: unknown[] } {
  const body = isPlainObject(input) ? { ...input } : input;
  if (isPlainObject(body) && "multiturn" in body) {
    if ("multiTurn" in body && body.multiTurn !== body.multiturn) throw bad("body.multiturn and body.multiTurn disagree");
    body.multiTurn = body.multiturn;
    delete body.multiturn;
  }
  checkObject(body, { name: req(t.nonEmpty), multiTurn: req(t.boolean), metricSettings: opt(t.list(metricSetting)) }, "body");
  const out = body as { name: string; multiTurn: boolean; metricSettings?: unknown[] };
  checkSettingNames(out.metricSettings);
  return out;
}

/** `PUT /v1/metric-collections/:id`. */
export function checkCollectionUpdate(body: unknown): { name?: string; metricSettings?: unknown[] } {
  if (isPlainObject(body) && ("multiTurn" in body || "multiturn" in body)) {
    throw bad("body.multiTurn: a collection's kind cannot be given on update (spec 7 rule 2)");
  }
  checkObject(body, { name: opt(t.nonEmpty), metricSettings: opt(t.list(metricSetting)) }, "body");
  const out = body as { name?: string; metricSettings?: unknown[] };
  checkSettingNames(out.metricSettings);
  return out;
}

const conversationalTestCase = t.object({
  turns: req(t.list(turn, { nonEmpty: true })),
  scenario: opt(t.string),
  expectedOutcome: opt(t.string),
  userDescription: opt(t.string),
  chatbotRole: opt(t.string),
  context: opt(t.strings),
  name: opt(t.string),
  additionalMetadata: opt(t.record),
  comments: opt(t.string),
});

/** `POST /v1/evaluate` (spec 4.5). Returns whether the test cases are conversational. */
export function checkEvaluate(body: unknown): boolean {
  checkObject(
    body,
    {
      metricCollection: req(t.nonEmpty),
      testCases: req(t.list(t.any, { nonEmpty: true })),
      hyperparameters: opt(t.record),
      identifier: opt(t.string),
    },
    "body",
  );
  const testCases = body.testCases as unknown[];
  const multiTurn = isPlainObject(testCases[0]) && "turns" in testCases[0];
  testCases.forEach((tc, i) => {
    const isConversational = isPlainObject(tc) && "turns" in tc;
    if (isConversational !== multiTurn) {
      throw bad(`body.testCases[${i}]: single-turn and conversational test cases cannot be mixed in one run`);
    }
    (multiTurn ? conversationalTestCase : llmTestCase)(tc, `body.testCases[${i}]`);
  });
  return multiTurn;
}

const schemaTypes = ["OBJECT", "ARRAY", "STRING", "FLOAT", "INTEGER", "BOOLEAN", "NULL"] as const;

/** CUSTOM plus the vendors' upper-snake-case names, which the spec omits (spec 2.6). */
const provider = (v: unknown, p: string) => {
  if (typeof v !== "string" || !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(v)) throw bad(`${p} must be CUSTOM or an upper-snake-case provider name`);
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

/** `POST /v2/prompts` (spec 4.8, 7 rule 5). */
export function checkPromptPush(body: unknown): void {
  checkObject(body, promptShape, "body");
  if (body.text !== undefined && body.messages !== undefined) throw bad("body: give text or messages, not both (spec 7 rule 5)");
  if (body.text === undefined && body.messages === undefined) throw bad("body.text or body.messages is required");
  if (body.outputType === "SCHEMA" && body.outputSchema === undefined) throw bad("body.outputSchema is required when outputType is SCHEMA");
  if (body.outputSchema !== undefined && body.outputType !== "SCHEMA") throw bad("body.outputSchema is used only when outputType is SCHEMA");
}

const goldenShared: Shape = {
  context: opt(t.nullable(t.list(t.any))),
  additionalMetadata: opt(t.nullable(t.record)),
  comments: opt(t.nullable(t.string)),
  sourceFile: opt(t.nullable(t.string)),
  finalized: opt(t.boolean),
  customColumnKeyValues: opt(t.record),
  imagesMapping: opt((v, p) => {
    t.record(v, p);
    for (const [k, e] of Object.entries(v as object)) t.object({ url: req(t.string), local: req(t.boolean) })(e, `${p}.${k}`);
  }),
  tags: opt(t.strings),
};

const singleTurnGolden: Shape = {
  input: req(t.string),
  actualOutput: opt(t.nullable(t.string)),
  expectedOutput: opt(t.nullable(t.string)),
  retrievalContext: opt(t.nullable(t.list(t.any))),
  toolsCalled: opt(t.nullable(t.list(toolCall))),
  expectedTools: opt(t.nullable(t.list(toolCall))),
  tokenCost: opt(t.nullable(t.number)),
  inputTokenCount: opt(t.nullable(t.nonNegativeInteger)),
  outputTokenCount: opt(t.nullable(t.nonNegativeInteger)),
  ...goldenShared,
};

const goldenTurn = t.object({
  id: opt(t.string),
  role: req(t.enumOf(["user", "assistant"])),
  content: req(t.string),
  userId: opt(t.string),
  retrievalContext: opt(t.nullable(t.list(t.any))),
  toolsCalled: opt(t.nullable(t.list(toolCall))),
});

const multiTurnGolden: Shape = {
  scenario: req(t.string),
  expectedOutcome: opt(t.nullable(t.string)),
  userDescription: opt(t.nullable(t.string)),
  turns: opt(t.nullable(t.list(goldenTurn))),
  ...goldenShared,
};

const VERSION = /^\d+(\.\d+)*$/;

/** `POST /v2/datasets` (spec 4.9, 7 rule 6, the parts without stored state). Returns the goldens' kind. */
export function checkDatasetPush(body: unknown): boolean {
  checkObject(
    body,
    { alias: req(t.nonEmpty), finalized: opt(t.boolean), version: opt(t.string), goldens: req(t.list(t.any, { nonEmpty: true })) },
    "body",
  );
  if (body.version !== undefined && !VERSION.test(body.version as string)) {
    throw bad('body.version must be a dotted numeric string such as "1" or "1.2.0"');
  }
  const goldens = body.goldens as unknown[];
  const multiTurn = goldenKind(goldens[0], 0);
  goldens.forEach((g, i) => {
    if (goldenKind(g, i) !== multiTurn) throw bad(`body.goldens[${i}]: single-turn and multi-turn goldens cannot be mixed in one push (spec 7 rule 6)`);
  });
  return multiTurn;
}

/** Whether a golden is multi-turn (`scenario`) or single-turn (`input`), checking its fields. */
function goldenKind(g: unknown, i: number): boolean {
  const p = `body.goldens[${i}]`;
  if (!isPlainObject(g)) throw bad(`${p} must be an object`);
  const multi = "scenario" in g;
  if (multi && "input" in g) throw bad(`${p}: a golden has either input (single-turn) or scenario (multi-turn), not both`);
  if (!multi && !("input" in g)) throw bad(`${p}.input (single-turn) or ${p}.scenario (multi-turn) is required`);
  checkObject(g, multi ? multiTurnGolden : singleTurnGolden, p);
  return multi;
}

/** Orders dotted numeric versions: "1.10" after "1.2". */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `POST /v1/organization/api-keys/:id/rotate` (spec 4.1). */
export function checkRotate(body: unknown): { gracePeriodInHours?: number; expiresInDays?: number | null } {
  checkObject(body, { gracePeriodInHours: opt(t.nonNegativeInteger), expiresInDays: opt(t.nullable(t.nonNegativeInteger)) }, "body");
  if (body.expiresInDays === 0) throw bad("body.expiresInDays must be at least 1, or null to remove the expiration");
  return body as { gracePeriodInHours?: number; expiresInDays?: number | null };
}

/** `PUT /v2/organization/api-keys/:id` (spec 4.2). */
export function checkKeyUpdate(body: unknown): { valid: boolean } {
  checkObject(body, { valid: req(t.boolean) }, "body");
  return body as { valid: boolean };
}

/** An API key id in a path: an integer (spec 4.1, 4.2). */
export function checkApiKeyId(raw: unknown): number {
  const s = String(raw);
  if (!/^\d+$/.test(s)) throw bad(`path apiKeyId must be an integer; got "${s}"`);
  return Number(s);
}

/**
 * An offline evaluation body (spec 4.7): the collection under the spec's `metricCollections` or
 * the live service's `metricCollection`; `chatbotRole` for threads only. Returns the name.
 */
export function checkOfflineEvaluation(body: unknown, target: "thread" | "trace" | "span"): string {
  const shape: Shape = { metricCollections: opt(t.nonEmpty), metricCollection: opt(t.nonEmpty), overwriteMetrics: opt(t.boolean) };
  if (target === "thread") shape.chatbotRole = opt(t.string);
  checkObject(body, shape, "body");
  const a = body.metricCollections as string | undefined;
  const b = body.metricCollection as string | undefined;
  if (a !== undefined && b !== undefined && a !== b) throw bad("body.metricCollections and body.metricCollection name different collections");
  const name = a ?? b;
  if (name === undefined) throw bad("body.metricCollections is required");
  return name;
}
