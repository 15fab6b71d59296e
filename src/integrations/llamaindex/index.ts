/**
 * `evaltrace/llamaindex`: spans for LlamaIndex.TS, from its own instrumentation events (the
 * `CallbackManager` on `Settings`) and its workflow agents' runs.
 */
export type { InstrumentLlamaIndexOptions } from "./instrument.js";
export { instrumentLlamaIndex } from "./instrument.js";
export type { AgentWorkflowClass, CallbackManagerLike, LlamaIndexEvent, LlamaIndexListener, LlamaIndexSettings, EventCaller } from "./types.js";
