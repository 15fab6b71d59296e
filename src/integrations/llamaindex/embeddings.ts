import { tracedEmbedderMethod } from "../kit/embedding-call.js";

/**
 * LlamaIndex's events carry no embedding call: `BaseEmbedding`'s own `getTextEmbeddingsBatch`
 * (documents, as an index is built) and `getQueryEmbedding` (a retriever's query), which every
 * embedder inherits (`OpenAIEmbedding` and any other), are wrapped on its prototype: a call is one
 * llm span, which the first model request an instrumented SDK makes inside it takes over
 * (`kit/embedding-call.ts`). Nothing here imports LlamaIndex.
 */

type Fn = (this: unknown, ...args: unknown[]) => unknown;

const WRAPPED = Symbol.for("evaltrace.llamaindex.embedding.wrapped");

const className = (v: object): string => {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name ? name : "BaseEmbedding";
};

const modelOf = (self: object): string => {
  const model = (self as { model?: unknown }).model;
  return typeof model === "string" && model ? model : className(self);
};

const METHODS: Readonly<Record<string, { texts(args: unknown[]): unknown[]; count(result: unknown): number }>> = {
  getTextEmbeddingsBatch: { texts: (args) => (Array.isArray(args[0]) ? args[0] : []), count: (r) => (Array.isArray(r) ? r.length : 0) },
  getQueryEmbedding: { texts: (args) => [args[0]], count: (r) => (Array.isArray(r) ? 1 : 0) },
};

/** Wraps `BaseEmbedding.prototype`'s embedding methods (once; `on` says whether to record now). */
export function traceBaseEmbedding(BaseEmbedding: unknown, on: () => boolean): void {
  const proto = (BaseEmbedding as { prototype?: object } | undefined)?.prototype;
  if (!proto || typeof proto !== "object") return;
  for (const [method, read] of Object.entries(METHODS)) {
    const own = Object.getOwnPropertyDescriptor(proto, method);
    if (!own || typeof own.value !== "function" || (own.value as { [WRAPPED]?: boolean })[WRAPPED] || !own.configurable) continue;
    const original = own.value as Fn;
    const traced = tracedEmbedderMethod(original, { integration: "LlamaIndex", name: (self) => `${className(self)}.${method}`, model: modelOf, ...read, on });
    Object.defineProperty(traced, WRAPPED, { value: true });
    Object.defineProperty(traced, "name", { value: original.name, configurable: true });
    Object.defineProperty(traced, "length", { value: original.length, configurable: true });
    Object.defineProperty(proto, method, { ...own, value: traced });
  }
}
