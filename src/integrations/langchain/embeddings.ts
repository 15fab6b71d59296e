import { processWide } from "../../process-wide.js";
import { tracedEmbedderMethod } from "../kit/embedding-call.js";
import { quietly } from "../kit/model-call.js";

/**
 * LangChain's `Embeddings` emit no callback: their calls are recorded here. `@langchain/core`'s
 * `Embeddings` class is handed out behind a constructor hook (a Proxy whose only trap is
 * `construct`), so that every subclass, known or not (`OpenAIEmbeddings`, an app's own), has its
 * `embedDocuments` and `embedQuery` wrapped on its prototype when its first instance is made. A
 * call is one llm span; the first model request inside it that an instrumented SDK makes takes
 * that span over (`kit/embedding-call.ts`), so a call is recorded once, with the request's tokens.
 * Nothing here imports LangChain.
 */

type Fn = (this: unknown, ...args: unknown[]) => unknown;
type Ctor = abstract new (...args: never[]) => unknown;

const WRAPPED = Symbol.for("evaltrace.langchain.embeddings.wrapped");
const METHODS = ["embedDocuments", "embedQuery"] as const;

/** The classes whose methods were wrapped (each is looked at once). */
const seen = new WeakSet<object>();

/** The model an embedder names (`model`, `modelName`, `modelId`, `model_id`), if any. */
export function embedderModel(embeddings: unknown): string | undefined {
  if (embeddings === null || typeof embeddings !== "object") return undefined;
  const e = embeddings as Record<string, unknown>;
  for (const key of ["model", "modelName", "modelId", "model_id"]) {
    const v = e[key];
    if (typeof v === "string" && v) return v;
  }
  return undefined;
}

const className = (v: object): string => {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name ? name : "Embeddings";
};

/** Marks `wrapped` as ours and gives it the original's name and length. */
function like(wrapped: Fn, original: Fn): Fn {
  Object.defineProperty(wrapped, WRAPPED, { value: true });
  Object.defineProperty(wrapped, "name", { value: original.name, configurable: true });
  Object.defineProperty(wrapped, "length", { value: original.length, configurable: true });
  return wrapped;
}

function tracedMethod(original: Fn, method: (typeof METHODS)[number], on: () => boolean): Fn {
  const traced = tracedEmbedderMethod(original, {
    integration: "LangChain",
    name: (self) => `${className(self)}.${method}`,
    model: (self) => embedderModel(self) ?? className(self),
    texts: (args) => (method === "embedQuery" ? [args[0]] : Array.isArray(args[0]) ? args[0] : []),
    count: (vectors) => (method === "embedQuery" ? 1 : Array.isArray(vectors) ? vectors.length : 0),
    on,
  });
  return like(traced, original);
}

/** Wraps `embedDocuments` and `embedQuery` where the class of `ctor` defines them (its own prototype or an ancestor's below `base`). */
function wrapClass(ctor: unknown, base: object, on: () => boolean): void {
  if (typeof ctor !== "function" || seen.has(ctor)) return;
  seen.add(ctor);
  for (const method of METHODS) {
    let proto: unknown = (ctor as { prototype?: unknown }).prototype;
    while (proto && proto !== base && typeof proto === "object") {
      const own = Object.getOwnPropertyDescriptor(proto, method);
      if (own) {
        if (typeof own.value === "function" && !(own.value as { [WRAPPED]?: boolean })[WRAPPED] && own.configurable) {
          Object.defineProperty(proto, method, { ...own, value: tracedMethod(own.value as Fn, method, on) });
        }
        break;
      }
      proto = Object.getPrototypeOf(proto);
    }
  }
}

/**
 * `@langchain/core`'s `Embeddings` as handed to the modules that import it: the same class behind
 * a Proxy that only sees construction (its `new.target`: the subclass being made) and wraps that
 * subclass's methods. Statics, `instanceof`, `name` and the prototype are the class's own.
 */
export function tracedEmbeddingsClass<T extends Ctor>(Embeddings: T, on: () => boolean): T {
  const proxies = processWide("langchainEmbeddingsProxies", () => new WeakMap<object, object>());
  const existing = proxies.get(Embeddings);
  if (existing) return existing as T;
  const base = Embeddings.prototype as object;
  const proxy = new Proxy(Embeddings, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget) as object;
      quietly(() => wrapClass(newTarget, base, on));
      return instance;
    },
  });
  proxies.set(Embeddings, proxy);
  proxies.set(proxy, proxy);
  return proxy;
}

/** Embedders of retriever runs, by run id: noted as the retriever runs, taken when its span ends. */
const MAX_NOTED = 1_000;
const retrieverEmbedders = () => processWide("langchainRetrieverEmbedders", () => new Map<string, string>());

/** The embedder noted for the retriever run `runId`, taken (each is read once). */
export function takeRetrieverEmbedder(runId: string): string | undefined {
  const map = retrieverEmbedders();
  const found = map.get(runId);
  if (found !== undefined) map.delete(runId);
  return found;
}

/**
 * Wraps `VectorStoreRetriever.prototype._getRelevantDocuments(query, runManager)` so that its run
 * (`runManager.runId`) is told the model of the vector store's embeddings
 * (`this.vectorStore.embeddings`): the retriever span's `embedder`. What it returns is the original's.
 */
export function noteRetrieverEmbedders(VectorStoreRetriever: unknown): void {
  const proto = (VectorStoreRetriever as { prototype?: Record<string, unknown> } | undefined)?.prototype;
  const method = "_getRelevantDocuments";
  const own = proto ? Object.getOwnPropertyDescriptor(proto, method) : undefined;
  if (!proto || !own || typeof own.value !== "function" || (own.value as { [WRAPPED]?: boolean })[WRAPPED] || !own.configurable) return;
  const original = own.value as Fn;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    quietly(() => {
      const runId = (args[1] as { runId?: unknown } | undefined)?.runId;
      const model = embedderModel((this as { vectorStore?: { embeddings?: unknown } } | undefined)?.vectorStore?.embeddings);
      const map = retrieverEmbedders();
      if (typeof runId === "string" && model && map.size < MAX_NOTED) map.set(runId, model);
    });
    return original.apply(this, args);
  };
  Object.defineProperty(proto, method, { ...own, value: like(wrapped, original) });
}
