/**
 * `evaltrace/openai`: an llm span for every OpenAI call that reaches a model (chat completions,
 * responses, embeddings), streamed or not, whichever helper of the SDK made it.
 */
export type { WrapOpenAIOptions } from "./options.js";
export type { CallResult, Usage } from "./stream.js";
export { wrapOpenAI } from "./wrap.js";
