/**
 * `evaltrace/anthropic`: an llm span for every `@anthropic-ai/sdk` messages call (`create`,
 * `stream`, `parse`, `beta.messages`, tool runners), streamed or not.
 */
export type { WrapAnthropicOptions } from "./anthropic/wrap.js";
export { wrapAnthropic } from "./anthropic/wrap.js";
