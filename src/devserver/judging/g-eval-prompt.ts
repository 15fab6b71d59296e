import type { JudgeInput } from "../context.js";

/** A chat message of the judge's request. */
export interface JudgeMessage {
  role: "system" | "user";
  content: string;
}

/** How each test-case field a metric reads (`evaluationParams`) is named to the judge. */
const PARAM_LABELS: Readonly<Record<string, string>> = {
  input: "Input",
  actualOutput: "Actual Output",
  expectedOutput: "Expected Output",
  context: "Context",
  retrievalContext: "Retrieval Context",
  toolsCalled: "Tools Called",
  expectedTools: "Expected Tools",
  turns: "Conversation",
};

/** What a single-turn metric reads when it names no `evaluationParams`. */
const DEFAULT_PARAMS = ["input", "actualOutput"];

/** The most characters of one field put into the prompt (a huge output is cut, and says so). */
export const MAX_FIELD_CHARS = 20_000;

const SYSTEM = [
  "You are a careful evaluator of the outputs of language-model applications.",
  "You judge one test case against the criteria of one metric, using only the fields you are given.",
  "You answer with a JSON object and nothing else.",
].join(" ");

/** A field's value as prompt text: strings as they are, the rest as JSON; cut at {@link MAX_FIELD_CHARS}. */
function asText(value: unknown): string {
  const s = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return s.length > MAX_FIELD_CHARS ? `${s.slice(0, MAX_FIELD_CHARS)}\n[... ${s.length - MAX_FIELD_CHARS} more characters cut]` : s;
}

/** A conversation's turns as `role: content` lines. */
function turnsText(turns: unknown): string {
  if (!Array.isArray(turns)) return asText(turns);
  return asText(
    turns
      .map((t) => {
        const turn = (t ?? {}) as { role?: unknown; content?: unknown };
        return `${String(turn.role ?? "?")}: ${typeof turn.content === "string" ? turn.content : JSON.stringify(turn.content)}`;
      })
      .join("\n"),
  );
}

/** The fields the metric reads, in its order; a conversation (multi-turn) is its turns. */
function fieldsOf(input: JudgeInput): [label: string, text: string][] {
  const testCase = (input.testCase ?? {}) as Record<string, unknown>;
  if (input.metric.multiTurn) {
    const fields: [string, string][] = [["Conversation", turnsText(testCase.turns)]];
    if (input.chatbotRole) fields.push(["Chatbot Role", input.chatbotRole]);
    return fields;
  }
  const params = input.metric.evaluationParams?.length ? input.metric.evaluationParams : DEFAULT_PARAMS;
  return params.map((p) => [PARAM_LABELS[p] ?? p, testCase[p] === undefined || testCase[p] === null ? "(not given)" : asText(testCase[p])]);
}

/** The evaluation steps as numbered lines (a step that is not a string is shown as JSON). */
function stepsText(steps: readonly unknown[]): string {
  return steps.map((s, i) => `${i + 1}. ${typeof s === "string" ? s : JSON.stringify(s)}`).join("\n");
}

/**
 * The judge's request for one metric over one test case, in the manner of G-Eval: the
 * metric's criteria and evaluation steps, the test-case fields it reads (its
 * `evaluationParams`, or the conversation of a multi-turn case), and the demand for
 * `{"score": 0..10, "reason": "..."}` as JSON. Our own wording; the emulator normalises the
 * score to 0..1.
 */
export function gEvalMessages(input: JudgeInput): JudgeMessage[] {
  const { metric } = input;
  const fields = fieldsOf(input);
  const names = fields.map(([label]) => label).join(", ");
  const parts = [`Evaluate the test case below for the metric "${metric.name}", looking only at: ${names}.`];
  if (metric.criteria) parts.push(`Evaluation criteria:\n${metric.criteria}`);
  if (metric.evaluationSteps?.length) parts.push(`Evaluation steps (follow them in order):\n${stepsText(metric.evaluationSteps)}`);
  else parts.push(`First work out 3 or 4 concise evaluation steps from the criteria that say how to weigh ${names} against each other; then follow them.`);
  parts.push(`Test case:\n${fields.map(([label, text]) => `${label}:\n${text}`).join("\n\n")}`);
  parts.push(
    [
      "Return only a JSON object with two keys:",
      '- "score": a number from 0 to 10, 10 when the test case fully meets the criteria and 0 when it does not meet them at all;',
      '- "reason": one or two sentences that explain the score, citing what in the test case decided it.',
      "No text before or after the JSON.",
    ].join("\n"),
  );
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}
