import { noteRetrieverEmbedders, tracedEmbeddingsClass } from "../../integrations/langchain/embeddings.js";
import { loadOwnEntry } from "../load.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Handler = { name: string };
type Manager = { handlers?: Handler[]; addHandler?: (h: Handler, inherit?: boolean) => void };
type ManagerClass = (new () => Manager) & { _configureSync?: Configure; configure?: Configure };
type Configure = (...args: unknown[]) => Manager | undefined;
type LangChainEntry = { EvaltraceCallbackHandler?: new () => Handler };

const PATCHED = Symbol.for("evaltrace.auto.langchain");
const HANDLER_NAME = "EvaltraceCallbackHandler";

let handler: Handler | undefined | null;

/** One handler for the whole process, made on the first run (null: the entry could not load). */
function sharedHandler(): Handler | undefined {
  if (handler === undefined) {
    const Handler = loadOwnEntry<LangChainEntry>("langchain")?.EvaltraceCallbackHandler;
    handler = typeof Handler === "function" ? new Handler() : null;
  }
  return handler ?? undefined;
}

/**
 * Adds the handler to every callback manager LangChain configures for a run, as a configure hook
 * would (inheritable, so child runs carry it; skipped when a handler of that name is there, so an
 * app passing its own `EvaltraceCallbackHandler` records each run once).
 */
function patchManager(Manager: ManagerClass): void {
  const key = typeof Manager._configureSync === "function" ? "_configureSync" : "configure";
  const original = Manager[key];
  if (typeof original !== "function" || (original as { [PATCHED]?: boolean })[PATCHED]) return;
  const configure: Configure = function (this: unknown, ...args: unknown[]) {
    const manager = original.apply(this, args);
    if (!isOn("langchain")) return manager;
    try {
      if (manager?.handlers?.some((h) => h?.name === HANDLER_NAME)) return manager;
      const ours = sharedHandler();
      if (!ours) return manager;
      const target = manager ?? new Manager();
      if (typeof target.addHandler !== "function") return manager;
      target.addHandler(ours, true);
      return target;
    } catch {
      return manager;
    }
  };
  Object.defineProperty(configure, PATCHED, { value: true });
  Object.defineProperty(Manager, key, { value: configure, writable: true, configurable: true, enumerable: false });
}

const onManager = (exports: Record<string, unknown>) => {
  const Manager = exports.CallbackManager as ManagerClass | undefined;
  if (typeof Manager === "function") patchManager(Manager);
};

const on = () => isOn("langchain");

/** `@langchain/core/embeddings`: its `Embeddings` class behind the constructor hook that wraps each subclass's calls (they emit no callback). */
const onEmbeddings = (exports: Record<string, unknown>) => {
  const Embeddings = exports.Embeddings;
  if (typeof Embeddings !== "function") return;
  exports.Embeddings = tracedEmbeddingsClass(Embeddings as abstract new (...args: never[]) => unknown, on);
};

/** `@langchain/core/vectorstores`: a `VectorStoreRetriever`'s run is told its vector store's embedding model. */
const onVectorStores = (exports: Record<string, unknown>) => noteRetrieverEmbedders(exports.VectorStoreRetriever);

/**
 * `@langchain/core` (and so LangChain, LangGraph and every integration package built on it): the
 * `EvaltraceCallbackHandler` joins every run, as if the app passed it in `callbacks`; every
 * `Embeddings` subclass's `embedDocuments` / `embedQuery` (no callback reports them) is an llm
 * span, and a `VectorStoreRetriever`'s span names its vector store's embedding model.
 */
export const langchainHook: LibraryHook = {
  library: "langchain",
  packageName: "@langchain/core",
  versions: [">=0.2"],
  files: [
    { path: "@langchain/core/dist/callbacks/manager.cjs", onLoad: onManager },
    { path: "@langchain/core/dist/callbacks/manager.js", onLoad: onManager },
    { path: "@langchain/core/dist/embeddings.cjs", onLoad: onEmbeddings },
    { path: "@langchain/core/dist/embeddings.js", onLoad: onEmbeddings, replaces: ["Embeddings"] },
    { path: "@langchain/core/dist/vectorstores.cjs", onLoad: onVectorStores },
    { path: "@langchain/core/dist/vectorstores.js", onLoad: onVectorStores },
  ],
};
