/**
 * `evaltrace/google-genai`: llm spans for the Google GenAI SDK (`@google/genai`), and for automatic
 * function calling an agent span with the run's model requests and tool calls under it.
 */
export type { WrapGoogleGenAIOptions } from "./options.js";
export { wrapGoogleGenAI } from "./wrap.js";
