/**
 * `evaltrace/langchain`: spans for LangChain and LangGraph runs, through a callback handler
 * passed per run or installed for every run.
 */
export type { EvaltraceCallbackHandlerOptions } from "./handler.js";
export { EvaltraceCallbackHandler } from "./handler.js";
export type { InstrumentLangChainOptions } from "./global.js";
export { instrumentLangChain, uninstrumentLangChain } from "./global.js";
