import type { LlmTestCase } from "../protocol/types.js";

/**
 * How an integration builds the online-eval test case of an llm span: `true` uses the last user
 * message as `input` and the reply as `actualOutput`; a function builds it; `false` builds none.
 */
export type LlmTestCaseOption = boolean | ((call: { input: string; output: string }) => LlmTestCase | undefined);

/** The test case for one llm call, or undefined. Defaults to on when a collection is set. */
export function buildTestCase(
  option: LlmTestCaseOption | undefined,
  metricCollection: string | undefined,
  messages: readonly { role: string; content: string }[],
  output: string,
): LlmTestCase | undefined {
  const want = option ?? metricCollection !== undefined;
  if (!want) return undefined;
  const input = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
  return typeof want === "function" ? want({ input, output }) : { input, actualOutput: output };
}
