/** Dollars per million tokens of one model: what a call's tokens cost. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/**
 * List prices of common models (USD per 1M tokens, standard tier), matched by the longest prefix
 * of the span's `model`. A span's own `costPerInputToken`/`costPerOutputToken` win over this
 * table; a model in neither has no cost (shown as "—", never as $0).
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4.1-nano": { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8 },
  "gpt-4-turbo": { inputPerMillion: 10, outputPerMillion: 30 },
  "gpt-3.5-turbo": { inputPerMillion: 0.5, outputPerMillion: 1.5 },
  "o4-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  "o3-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  "o1-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  o1: { inputPerMillion: 15, outputPerMillion: 60 },
  "claude-3-5-haiku": { inputPerMillion: 0.8, outputPerMillion: 4 },
  "claude-3-5-sonnet": { inputPerMillion: 3, outputPerMillion: 15 },
  "claude-3-7-sonnet": { inputPerMillion: 3, outputPerMillion: 15 },
  "claude-sonnet-4": { inputPerMillion: 3, outputPerMillion: 15 },
  "claude-opus-4": { inputPerMillion: 15, outputPerMillion: 75 },
  "claude-3-haiku": { inputPerMillion: 0.25, outputPerMillion: 1.25 },
  "gemini-2.5-pro": { inputPerMillion: 1.25, outputPerMillion: 10 },
  "gemini-2.5-flash": { inputPerMillion: 0.3, outputPerMillion: 2.5 },
  "gemini-2.0-flash": { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  "gemini-1.5-pro": { inputPerMillion: 1.25, outputPerMillion: 5 },
  "gemini-1.5-flash": { inputPerMillion: 0.075, outputPerMillion: 0.3 },
};

/** Prefixes longest first, so "gpt-4o-mini-2024-07-18" finds gpt-4o-mini before gpt-4o. */
const prefixes = Object.keys(MODEL_PRICES).sort((a, b) => b.length - a.length);

/** The list price of a model (a dated or provider-prefixed name finds its base), if known. */
export function priceOf(model: unknown): ModelPrice | undefined {
  if (typeof model !== "string") return undefined;
  const name = model.toLowerCase().replace(/^(openai|anthropic|google|models)\//, "");
  const hit = prefixes.find((p) => name.startsWith(p));
  return hit === undefined ? undefined : MODEL_PRICES[hit];
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * What one span's tokens cost in dollars: its `costPer*Token` fields (dollars per token) where
 * set, else the model's list price; undefined when neither is known or no tokens were counted.
 */
export function spanCost(span: Record<string, unknown>): number | undefined {
  const input = num(span.inputTokenCount) ?? 0;
  const output = num(span.outputTokenCount) ?? 0;
  if (input === 0 && output === 0) return undefined;
  const price = priceOf(span.model);
  const perIn = num(span.costPerInputToken) ?? (price ? price.inputPerMillion / 1e6 : undefined);
  const perOut = num(span.costPerOutputToken) ?? (price ? price.outputPerMillion / 1e6 : undefined);
  if (perIn === undefined && perOut === undefined) return undefined;
  return input * (perIn ?? 0) + output * (perOut ?? 0);
}
