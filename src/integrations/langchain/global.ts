import { getContextVariable, registerConfigureHook, setContextVariable } from "@langchain/core/context";
import { EvaltraceCallbackHandler, type EvaltraceCallbackHandlerOptions } from "./handler.js";

/** Options of {@link instrumentLangChain}: those of the handler it installs. */
export type InstrumentLangChainOptions = EvaltraceCallbackHandlerOptions;

/** The LangChain context variable the configure hook reads the handler from. */
const CONTEXT_VAR = "evaltrace_langchain_handler";

let installed: { handler: EvaltraceCallbackHandler; undo: () => void } | undefined;

/**
 * Installs an {@link EvaltraceCallbackHandler} for every LangChain and LangGraph run, with no
 * `callbacks` passed per call, through `@langchain/core`'s own configure hook
 * (`registerConfigureHook` and a context variable). Runs given an `EvaltraceCallbackHandler`
 * of their own keep theirs (LangChain adds one handler per name), so nothing is recorded twice.
 *
 * Idempotent: while installed, a second call changes nothing and returns the same undo. The
 * returned function (or {@link uninstrumentLangChain}) removes the handler from runs that start
 * afterwards. LangChain keeps context variables in its async context: call this at start-up,
 * before the app starts its work (runs in async contexts created earlier do not see it).
 * Never throws: when `@langchain/core` cannot install hooks, it logs nothing and returns a no-op.
 *
 * @example
 * import { instrumentLangChain } from "evaltrace/langchain";
 * instrumentLangChain({ metricCollection: "answers" });
 * await agent.invoke({ messages: [{ role: "user", content: "Where is my order?" }] });
 */
export function instrumentLangChain(options?: InstrumentLangChainOptions): () => void {
  if (installed && getContextVariable(CONTEXT_VAR) === installed.handler) return installed.undo;
  try {
    const handler = new EvaltraceCallbackHandler(options);
    registerConfigureHook({ contextVar: CONTEXT_VAR, inheritable: true });
    setContextVariable(CONTEXT_VAR, handler);
    const undo = () => {
      if (installed?.handler !== handler) return;
      installed = undefined;
      try {
        setContextVariable(CONTEXT_VAR, undefined);
      } catch {
        // no async context storage: nothing was installed
      }
    };
    installed = { handler, undo };
    return undo;
  } catch {
    return () => {};
  }
}

/** Removes what {@link instrumentLangChain} installed; runs that start afterwards are not recorded. */
export function uninstrumentLangChain(): void {
  installed?.undo();
}
