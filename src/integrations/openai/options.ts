import type { LlmTestCaseOption } from "../../spans/test-case.js";

/** Options of {@link wrapOpenAI}. */
export interface WrapOpenAIOptions {
  /** Span name. @default "openai.chat.completions", "openai.responses" or "openai.embeddings" */
  name?: string;
  /** Single-turn metric collection that evaluates each call online. */
  metricCollection?: string;
  /**
   * The test case of the online evaluation. `true` (the default when `metricCollection` is set)
   * uses the last user message as `input` and the reply as `actualOutput`; a function builds it.
   */
  llmTestCase?: LlmTestCaseOption;
}
