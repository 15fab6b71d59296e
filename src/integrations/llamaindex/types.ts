/**
 * The shapes of LlamaIndex.TS that the integration reads, written structurally so that any copy
 * of `@llamaindex/core` (0.11 and 0.12 ship different ones, and `@llamaindex/openai` may bring
 * its own) fits, and nothing of LlamaIndex is imported.
 */

/** An event as a `CallbackManager` hands it to a listener: `detail`, and `reason` (who dispatched it). */
export interface LlamaIndexEvent {
  detail?: unknown;
  reason?: EventCaller | null;
}

/** LlamaIndex's `EventCaller`: the object whose method dispatched an event, and the caller around it. */
export interface EventCaller {
  caller?: unknown;
  parent?: EventCaller | null;
}

/** A listener of a `CallbackManager` event. */
export type LlamaIndexListener = (event: LlamaIndexEvent) => void;

/** LlamaIndex's `CallbackManager` (`Settings.callbackManager`): listeners per event name. */
export interface CallbackManagerLike {
  on(event: string, handler: LlamaIndexListener): unknown;
  off(event: string, handler: LlamaIndexListener): unknown;
}

/**
 * LlamaIndex's `Settings` (from `llamaindex` or `@llamaindex/core/global`): the global LLM and
 * the callback manager every LlamaIndex module dispatches its events to.
 */
export interface LlamaIndexSettings {
  callbackManager: CallbackManagerLike;
  /** The global LLM (LlamaIndex's getter throws while none is set). */
  llm?: unknown;
}

/** LlamaIndex's `AgentWorkflow` class (`agent()` and `multiAgent()` of `@llamaindex/workflow` make one). */
export interface AgentWorkflowClass {
  prototype: object;
}
