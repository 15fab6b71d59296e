import { checkEvaluate } from "../protocol/requests.js";
import { isPlainObject, SchemaError } from "../protocol/schema.js";
import type { ConversationalTestCase, MultiTurnGolden, SingleTurnGolden, SingleTurnTestCase, ToolCall, Turn } from "../protocol/types.js";

/** A golden turned into a test case, or why it cannot be one (the case fails with that). */
export type Made = { ok: true; testCase: SingleTurnTestCase | ConversationalTestCase; actualOutput: string } | { ok: false; error: string };

const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v);

/** A golden's context list as test cases take it: strings (anything else as its JSON). */
function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x)));
}

/** The tool-call fields a test case takes, null ones left out (goldens allow null, test cases do not all). */
const toolFields = ["name", "type", "description", "inputParameters", "output", "reasoning"] as const;

/** A golden's tool calls as test cases take them (null fields left out). */
export function tools(v: unknown): ToolCall[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isPlainObject).map((t) => Object.fromEntries(toolFields.filter((k) => t[k] !== undefined && t[k] !== null).map((k) => [k, t[k]])) as unknown as ToolCall);
}

/** Copies the entries of `from` whose values are defined. */
function defined<T extends object>(from: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as T;
}

/** The check of `POST /v1/evaluate` on one test case, its message naming the task's output. */
function check(testCase: object): string | undefined {
  try {
    checkEvaluate({ metricCollection: "x", testCases: [testCase] });
    return undefined;
  } catch (err) {
    if (err instanceof SchemaError) return `the test case made from the task's output is invalid: ${err.message.replace("body.testCases[0]", "testCase")}`;
    throw err;
  }
}

/**
 * A single-turn test case: the golden's input, expected output, context and expected tools; the
 * task's actual output, retrieval context (else the golden's) and tools called (else those of
 * its tool spans).
 */
export function singleTurnCase(golden: SingleTurnGolden, output: unknown, spanTools: ToolCall[]): Made {
  let actualOutput: unknown = output;
  let retrievalContext: unknown = golden.retrievalContext;
  let toolsCalled: unknown = spanTools.length > 0 ? spanTools : undefined;
  if (isPlainObject(output)) {
    actualOutput = output.actualOutput;
    if (output.retrievalContext !== undefined) retrievalContext = output.retrievalContext;
    if (output.toolsCalled !== undefined) toolsCalled = output.toolsCalled;
  }
  if (typeof actualOutput !== "string") {
    return { ok: false, error: `the task returned ${isPlainObject(output) ? "an object whose actualOutput is " : ""}${describe(actualOutput)}; return the actual output as a string, or { actualOutput, retrievalContext?, toolsCalled? }` };
  }
  const testCase = defined<SingleTurnTestCase>({
    input: golden.input,
    actualOutput,
    expectedOutput: typeof golden.expectedOutput === "string" ? golden.expectedOutput : undefined,
    context: strings(golden.context),
    retrievalContext: strings(retrievalContext) ?? (retrievalContext === undefined || retrievalContext === null ? undefined : retrievalContext),
    toolsCalled: Array.isArray(toolsCalled) ? tools(toolsCalled) : toolsCalled,
    expectedTools: tools(golden.expectedTools),
    additionalMetadata: isPlainObject(golden.additionalMetadata) ? golden.additionalMetadata : undefined,
    comments: typeof golden.comments === "string" ? golden.comments : undefined,
  });
  const problem = check(testCase);
  return problem ? { ok: false, error: problem } : { ok: true, testCase, actualOutput };
}

const turnFields = ["role", "content", "userId", "retrievalContext", "toolsCalled", "additionalMetadata"] as const;

/** A conversational test case: the turns the task returned, with the golden's scenario, expected outcome, user and context. */
export function multiTurnCase(golden: MultiTurnGolden, output: unknown): Made {
  const turns = Array.isArray(output) ? output : isPlainObject(output) ? output.turns : undefined;
  if (!Array.isArray(turns) || turns.length === 0) {
    return { ok: false, error: `the task returned ${describe(output)}; for a multi-turn golden return the conversation's turns, [{ role, content }, ...] or { turns }` };
  }
  const kept = turns.map((t) => (isPlainObject(t) ? defined<Turn>(Object.fromEntries(turnFields.map((k) => [k, t[k] === null ? undefined : t[k]]))) : t));
  const testCase = defined<ConversationalTestCase>({
    turns: kept,
    scenario: golden.scenario,
    expectedOutcome: typeof golden.expectedOutcome === "string" ? golden.expectedOutcome : undefined,
    userDescription: typeof golden.userDescription === "string" ? golden.userDescription : undefined,
    context: strings(golden.context),
    additionalMetadata: isPlainObject(golden.additionalMetadata) ? golden.additionalMetadata : undefined,
    comments: typeof golden.comments === "string" ? golden.comments : undefined,
  });
  const problem = check(testCase);
  if (problem) return { ok: false, error: problem };
  const last = [...(kept as Turn[])].reverse().find((t) => t.role === "assistant");
  return { ok: true, testCase, actualOutput: last?.content ?? "" };
}
