import { type Context, context, createContextKey } from "@opentelemetry/api";
import type { ManualSpan } from "../../tracing/manual-span.js";

/**
 * A framework's embedding call (a LangChain `Embeddings`, a LlamaIndex `BaseEmbedding`) whose
 * framework emits no callback for it, handed to the model SDK's wrapper inside it: one llm span
 * per model request, whoever records it. The framework's wrapper opens the span; the first SDK
 * request inside takes it over (its model, input and tokens, under the SDK's span name), any
 * further request (a batch split by the framework) opens its own. A framework call that reaches
 * no instrumented SDK (an embedder of another vendor, a local model) keeps its own span.
 */
interface Pending {
  span: ManualSpan;
  taken: boolean;
}

const PENDING = createContextKey("evaltrace.embedding-call");

/** Whether a framework's embedding call is in progress here (a nested embedder then opens no span of its own). */
export function inFrameworkEmbedding(ctx: Context = context.active()): boolean {
  return ctx.getValue(PENDING) !== undefined;
}

/** Runs `fn` with `span` offered to the first model request inside it; after `fn`, nothing takes it. */
export function offerEmbeddingSpan<T>(span: ManualSpan, fn: () => T): { result: T; release(): void } {
  const pending: Pending = { span, taken: false };
  const result = context.with(span.context.setValue(PENDING, pending), fn);
  return {
    result,
    release() {
      pending.taken = true;
    },
  };
}

/**
 * The framework's span, when this request is the first model request of a framework's embedding
 * call: the SDK wrapper records the request on it (and ends it) instead of opening a span.
 */
export function takeEmbeddingSpan(ctx: Context = context.active()): ManualSpan | undefined {
  const pending = ctx.getValue(PENDING) as Pending | undefined;
  if (!pending || pending.taken) return undefined;
  pending.taken = true;
  return pending.span;
}

/**
 * Opens an SDK request's llm span, or takes over a framework's pending one (renamed, its fields
 * and input the request's own). `open` opens a new one.
 */
export function embeddingSpan(name: string, fields: Record<string, unknown>, input: unknown, open: () => ManualSpan | undefined): ManualSpan | undefined {
  const taken = takeEmbeddingSpan();
  if (!taken) return open();
  taken.rename(name);
  taken.set(fields);
  taken.setInput(input);
  return taken;
}
