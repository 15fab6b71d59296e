import { type Context, context, createContextKey } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";

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

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** How a framework's embedder method reads: its span's name, integration and model, its texts, and how many vectors it gave. */
export interface EmbedderMethod {
  /** `LangChain`, `LlamaIndex`. */
  integration: string;
  /** The span's name for this instance (`OpenAIEmbeddings.embedDocuments`). */
  name(self: object): string;
  /** The model the instance names; its class name when it names none (an llm span needs one). */
  model(self: object): string;
  /** The texts the call embeds. */
  texts(args: unknown[]): unknown[];
  /** How many vectors the call gave. */
  count(result: unknown): number;
  /** Whether recording is on now. */
  on(): boolean;
}

const textOf = (t: unknown): string => (typeof t === "string" ? t : Array.isArray(t) ? t.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("") : "");

/**
 * A framework embedder's method as one llm span (the texts as input, `[n embedding(s)]` as output)
 * offered to the first model request inside it; a call inside another framework embedding call
 * (an embedder wrapping another) opens none. What it returns and throws is the original's.
 */
export function tracedEmbedderMethod(original: Fn, m: EmbedderMethod): Fn {
  return function (this: unknown, ...args: unknown[]): unknown {
    // A LlamaIndex embedder is a function object (a callable TransformComponent).
    if (this === null || (typeof this !== "object" && typeof this !== "function") || inFrameworkEmbedding() || !m.on()) return original.apply(this, args);
    let span: ManualSpan | undefined;
    try {
      span = openSpan(m.name(this), "llm", { model: m.model(this) }, [{ role: "user", content: m.texts(args).map(textOf).join("\n") }]);
      span?.setIntegration(m.integration);
    } catch {
      span = undefined;
    }
    if (!span) return original.apply(this, args);
    const open = span;
    let offered: { result: unknown; release(): void };
    try {
      offered = offerEmbeddingSpan(open, () => original.apply(this, args));
    } catch (err) {
      open.fail(err);
      throw err;
    }
    try {
      Promise.resolve(offered.result).then(
        (vectors) => {
          offered.release();
          open.end(`[${m.count(vectors)} embedding(s)]`);
        },
        (err: unknown) => {
          offered.release();
          open.fail(err);
        },
      );
    } catch {
      // The call's result is the app's as it is.
    }
    return offered.result;
  };
}
