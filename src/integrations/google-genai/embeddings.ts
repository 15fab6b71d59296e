import { context } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { embeddingSpan } from "../kit/embedding-call.js";
import { finishCall, isObject, type Message, owningCall, quietly, setMetadata } from "../kit/model-call.js";
import { inputMessages, modelName } from "./content.js";
import type { State } from "./options.js";

type Fn = (...args: unknown[]) => unknown;

/** The texts of an embedContent request (`contents`: a string, parts, contents) as one user message. */
function embedInput(params: Record<string, unknown>): Message[] {
  const texts = inputMessages({ contents: params.contents }).map((m) => m.content);
  return texts.length === 0 ? [] : [{ role: "user", content: texts.join("\n") }];
}

/** Input tokens of an embedContent reply: the sum of each embedding's `statistics.tokenCount` (Vertex AI; the Gemini API reports none). */
function embedTokens(reply: Record<string, unknown>): number | undefined {
  const embeddings = Array.isArray(reply.embeddings) ? reply.embeddings : [];
  let total: number | undefined;
  for (const e of embeddings) {
    const n = isObject(e) && isObject(e.statistics) ? e.statistics.tokenCount : undefined;
    if (typeof n === "number" && Number.isFinite(n)) total = (total ?? 0) + n;
  }
  return total;
}

/** Runs `call` in `span`'s context; when it settles, `settled` reads the reply (a rejection fails the span). The SDK's own promise is returned. */
function traced(span: ManualSpan, call: () => unknown, settled: (reply: Record<string, unknown>) => void): unknown {
  let result: unknown;
  try {
    result = context.with(owningCall(span.context), call);
  } catch (err) {
    span.fail(err);
    throw err;
  }
  quietly(() =>
    Promise.resolve(result).then(
      (value) => quietly(() => settled(isObject(value) ? value : {})),
      (err: unknown) => span.fail(err),
    ),
  );
  return result;
}

/**
 * `models.embedContent`: one model request, an llm span (`gemini.embedContent`) with the model,
 * the texts as input, `[n embedding(s)]` as output and the input tokens when the reply has them.
 */
export function embedCall(self: unknown, original: Fn, args: unknown[], state: State): unknown {
  let span: ManualSpan | undefined;
  let input: Message[] = [];
  try {
    const p = isObject(args[0]) ? args[0] : {};
    input = embedInput(p);
    const fields = { model: modelName(p.model), provider: "Gemini" };
    span = embeddingSpan("gemini.embedContent", fields, input, () => openSpan("gemini.embedContent", "llm", fields, input));
    if (span) {
      span.setIntegration("Google GenAI");
      if (state.options.metricCollection) span.set({ metricCollection: state.options.metricCollection });
    }
  } catch {
    span = undefined;
  }
  if (!span) return original.apply(self, args);
  const open = span;
  return traced(open, () => original.apply(self, args), (reply) => {
    const count = Array.isArray(reply.embeddings) ? reply.embeddings.length : 0;
    finishCall(open, state.options, input, { output: `[${count} embedding(s)]`, inputTokens: embedTokens(reply), toolCalls: [], metadata: {} });
  });
}

/**
 * `models.countTokens`: not a model request (nothing is generated or embedded, nothing billed), so
 * not an llm span: a base span (`gemini.countTokens`) with the contents as input, the total as
 * output and the model and total in its metadata.
 */
export function countTokensCall(self: unknown, original: Fn, args: unknown[]): unknown {
  let span: ManualSpan | undefined;
  let model: unknown;
  try {
    const p = isObject(args[0]) ? args[0] : {};
    model = modelName(p.model);
    span = openSpan("gemini.countTokens", "base", {}, inputMessages(p));
    span?.setIntegration("Google GenAI");
  } catch {
    span = undefined;
  }
  if (!span) return original.apply(self, args);
  const open = span;
  return traced(open, () => original.apply(self, args), (reply) => {
    const total = typeof reply.totalTokens === "number" ? reply.totalTokens : undefined;
    setMetadata(open, { model: typeof model === "string" ? model : undefined, totalTokens: total });
    open.end(total === undefined ? undefined : { totalTokens: total });
  });
}
