import { instrumentAgentWorkflow } from "../../integrations/llamaindex/agents.js";
import { traceBaseEmbedding } from "../../integrations/llamaindex/embeddings.js";
import { attachLlamaIndex } from "../../integrations/llamaindex/instrument.js";
import type { AgentWorkflowClass, LlamaIndexSettings } from "../../integrations/llamaindex/types.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

const on = () => isOn("llamaindex");

/** `@llamaindex/core/global` (each copy: llamaindex 0.11 and `@llamaindex/openai` may bring two): its `Settings`. */
const onGlobal = (exports: Record<string, unknown>) => {
  const settings = exports.Settings as LlamaIndexSettings | undefined;
  if (settings && typeof settings === "object") attachLlamaIndex(settings, {}, on);
};

/** `@llamaindex/core/embeddings` (each copy): its `BaseEmbedding`'s calls, which no event carries. */
const onEmbeddings = (exports: Record<string, unknown>) => traceBaseEmbedding(exports.BaseEmbedding, on);

/**
 * LlamaIndex.TS: the listeners of `instrumentLlamaIndex` join the callback manager of every copy
 * of `@llamaindex/core` that loads (its `Settings`, in `global/`), and `AgentWorkflow` of
 * `@llamaindex/workflow` has its runs recorded as agent spans, and `BaseEmbedding`'s calls (no
 * event carries them) are llm spans. An app calling
 * `instrumentLlamaIndex` itself sets the options of what is recorded; nothing is recorded twice.
 */
export const llamaindexHook: LibraryHook = {
  library: "llamaindex",
  packageName: "@llamaindex/core",
  versions: [">=0.4"],
  // @llamaindex/core has no main entry ("."): its files are hooked under require by their names.
  requireFilesByName: true,
  files: [
    { path: "@llamaindex/core/global/dist/index.cjs", onLoad: onGlobal },
    { path: "@llamaindex/core/global/dist/index.js", onLoad: onGlobal },
    { path: "@llamaindex/core/embeddings/dist/index.cjs", onLoad: onEmbeddings },
    { path: "@llamaindex/core/embeddings/dist/index.js", onLoad: onEmbeddings },
  ],
  modules: [
    {
      packageName: "@llamaindex/workflow",
      versions: [">=1"],
      onLoad: (exports) => attachAgentWorkflow(exports.AgentWorkflow as AgentWorkflowClass | undefined),
    },
  ],
};

function attachAgentWorkflow(AgentWorkflow: AgentWorkflowClass | undefined): void {
  if (typeof AgentWorkflow === "function") instrumentAgentWorkflow(AgentWorkflow, on);
}
