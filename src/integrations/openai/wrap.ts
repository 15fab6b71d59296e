import { context } from "@opentelemetry/api";
import { owningCall } from "../kit/model-call.js";
import { netStainlessClient } from "../net/index.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";
import { observeCall } from "./api-promise.js";
import { startCall } from "./call.js";
import type { Api } from "./content.js";
import type { WrapOpenAIOptions } from "./options.js";

const WRAPPED = Symbol.for("evaltrace.openai.wrapped");

/**
 * Instruments an OpenAI client in place: every call that reaches a model is one llm span
 * (model, messages with tool calls and tool results, output, tool calls as `toolsCalled`, token
 * counts), whichever method made it: `chat.completions.create` / `.parse` / `.stream` /
 * `.runTools`, `responses.create` / `.parse` / `.stream`, `beta.responses.create`, `embeddings.create`, streamed or not;
 * a stream's span ends when the app has consumed it. The client stays the very same object: the
 * methods return the SDK's own promises (`.withResponse()`, `.asResponse()` work, and nothing
 * reads a body the app did not ask for), errors are the SDK's own at the same moment, `#private`
 * members and `withOptions()` work. Wrapping twice changes nothing.
 *
 * @example
 * import OpenAI from "openai";
 * import { wrapOpenAI } from "evaltrace/openai";
 * const openai = wrapOpenAI(new OpenAI(), { metricCollection: "answers" });
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  try {
    const c = client as { [WRAPPED]?: boolean; chat?: { completions?: object }; responses?: object; embeddings?: object; beta?: { responses?: object }; withOptions?: unknown };
    if (c[WRAPPED]) return client;
    const chat = instrument(c.chat?.completions, "chat", options);
    const responses = instrument(c.responses, "responses", options);
    const embeddings = instrument(c.embeddings, "embeddings", options);
    // openai 6's beta Responses API has its own resource (its `create` only, streamed or not).
    instrument(c.beta?.responses, "responses", options);
    if (!chat && !responses && !embeddings) {
      reportUnexpectedClient("wrapOpenAI", "the client has no chat.completions.create, responses.create nor embeddings.create");
      return client;
    }
    const withOptions = c.withOptions;
    if (typeof withOptions === "function") {
      // A client derived with other options (openai 7) is instrumented the same way.
      Object.defineProperty(client, "withOptions", {
        configurable: true,
        writable: true,
        value(this: unknown, ...args: unknown[]) {
          return wrapOpenAI((withOptions as (...a: unknown[]) => object).apply(this, args), options);
        },
      });
    }
    Object.defineProperty(client, WRAPPED, { value: true });
    netStainlessClient("openai", client);
  } catch (err) {
    // A client of an unexpected shape stays as it was.
    reportWrapFailure("wrapOpenAI", err);
  }
  return client;
}

/** Puts the span-making `create` on this resource object itself (its class is left alone); false when it has no `create`. */
function instrument(resource: object | undefined, api: Api, options: WrapOpenAIOptions): boolean {
  if (!resource || typeof resource !== "object") return false;
  const original = (resource as { create?: unknown }).create;
  if (typeof original !== "function") return false;
  if ((original as { [WRAPPED]?: boolean })[WRAPPED]) return true;
  const create = function create(this: unknown, ...args: unknown[]): unknown {
    const span = startCall(api, args[0], args[1], options);
    if (!span) return (original as (...a: unknown[]) => unknown).apply(this, args);
    let result: unknown;
    try {
      result = context.with(owningCall(span.span.context), () => (original as (...a: unknown[]) => unknown).apply(this, args));
    } catch (err) {
      span.span.fail(err);
      throw err;
    }
    observeCall(result, span);
    return result;
  };
  Object.defineProperty(create, WRAPPED, { value: true });
  Object.defineProperty(resource, "create", { configurable: true, writable: true, value: create });
  return true;
}
