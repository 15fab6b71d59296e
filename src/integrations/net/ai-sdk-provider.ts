import { type Context, context, trace } from "@opentelemetry/api";
import { getSpanData } from "../../spans/span-data.js";
import { scopeNameOf } from "../../spans/span-shape.js";
import { modelCallOwned, quietly } from "../kit/model-call.js";
import { endpointOf, type Endpoint, type NetSdk } from "./endpoints.js";
import { type NetSpan, openNetSpan } from "./net-span.js";
import { readResponse } from "./response-reader.js";

type Fetch = (input: unknown, init?: { body?: unknown }) => Promise<unknown>;
type Post = (options: unknown) => unknown;

/** The APIs an AI SDK provider's request can be read as, tried in order (their paths differ). */
const SDKS: readonly NetSdk[] = ["openai", "anthropic", "google-genai"];

/** The context key of a call the AI SDK's own functions make (its telemetry is the app's to choose): the net stays out. */
const AI_SDK_CALL = Symbol.for("evaltrace.net.aiSdkCall");

/**
 * Runs `fn` as a call of the AI SDK's own functions (`generateText`, an agent's `generate` ...),
 * whose model requests zero-code records through the AI SDK's telemetry or, where the app turned
 * that off for the call, not at all: the net under the providers leaves them alone.
 */
export function leftToAiSdk<T>(fn: () => T): T {
  return context.with(context.active().setValue(AI_SDK_CALL, true), fn);
}

/** The AI SDK's own telemetry tracers (AI SDK 5/6 `ai`, AI SDK 7's `@ai-sdk/otel` `gen_ai`): a call they record is theirs. */
const AI_SDK_SCOPES = new Set(["ai", "gen_ai"]);

/**
 * The net under the AI SDK's providers (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`
 * and whatever uses `@ai-sdk/provider-utils`): every provider request goes through
 * `postJsonToApi` / `postToApi`, which take the `fetch` to use. A request that nobody records
 * (no wrapper of ours owns it, it is not made by the AI SDK's own functions, which zero-code
 * traces through their telemetry ({@link leftToAiSdk}), and no AI SDK telemetry span is around
 * it: an agent framework's own loop over the providers, such as Mastra's), to an endpoint of the net's
 * table, is recorded as one llm span: the call gets a `fetch` that opens the span with the
 * request's JSON and ends it from a clone of the response. What the provider gets back is the
 * response `fetch` gave; while `on()` is false, `post` runs as it is. Returns the replacement of
 * `post`, which keeps its name and length.
 */
export function netProviderPost(post: Post, bodyOf: (options: Record<string, unknown>) => unknown, on: () => boolean): Post {
  const replacement = function (this: unknown, options: unknown) {
    let watched = options;
    quietly(() => {
      if (!on() || options === null || typeof options !== "object" || !nobodyRecords()) return;
      const o = options as Record<string, unknown>;
      const target = typeof o.url === "string" ? endpointOfUrl(o.url) : undefined;
      if (target === undefined) return;
      watched = { ...o, fetch: recordingFetch(o.fetch as Fetch | undefined, target.endpoint, bodyOf(o), target.path, context.active()) };
    });
    return post.call(this, watched);
  };
  Object.defineProperty(replacement, "name", { value: post.name, configurable: true });
  Object.defineProperty(replacement, "length", { value: post.length, configurable: true });
  return replacement;
}

/** Whether no one records the model call made now: no wrapper of ours owns it, no AI SDK telemetry span is around it. */
function nobodyRecords(): boolean {
  const ctx = context.active();
  if (modelCallOwned(ctx) || ctx.getValue(AI_SDK_CALL) === true) return false;
  const active = trace.getSpan(ctx);
  if (active === undefined || getSpanData(active) !== undefined) return true;
  const scope = scopeNameOf(active);
  return scope === undefined || !AI_SDK_SCOPES.has(scope);
}

/** The net's endpoint for a provider's request URL, if the table has one, and the URL's path. */
function endpointOfUrl(url: string): { endpoint: Endpoint; path: string } | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  for (const sdk of SDKS) {
    const endpoint = endpointOf(sdk, "POST", path);
    if (endpoint) return { endpoint, path };
  }
  return undefined;
}

/** A `fetch` that records the one request it makes (the provider's), then hands back the response untouched. */
function recordingFetch(own: Fetch | undefined, endpoint: Endpoint, body: unknown, path: string, parent: Context): Fetch {
  return async (input, init) => {
    const real = own ?? (globalThis.fetch as unknown as Fetch);
    let net: NetSpan | undefined;
    quietly(() => {
      net = openNetSpan(endpoint, body, path, parent);
    });
    let response: unknown;
    try {
      response = await real(input, init);
    } catch (err) {
      if (net) quietly(() => net!.span.fail(err));
      throw err;
    }
    if (net) readResponse(net, response);
    return response;
  };
}
