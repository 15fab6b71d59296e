import { hookModels } from "./hooks.js";
import type { State, WrapGoogleGenAIOptions } from "./options.js";
import { processWide } from "../../process-wide.js";
import { isObject } from "../kit/model-call.js";
import { netGenAIClient } from "../net/index.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** The `models` objects instrumented, with their options (shared by every copy of evaltrace). */
const instrumented = (): WeakMap<object, State> => processWide("googleGenAIModels", () => new WeakMap<object, State>());

const stateOf = (models: object): State | undefined => instrumented().get(models);

/**
 * Instruments a Google GenAI client (`@google/genai`) and returns it: every
 * `models.generateContent` and `models.generateContentStream` (and so every `chats` message)
 * becomes one llm span: model, provider `Gemini`, the system instruction and contents as plain
 * text (function calls and function responses included), the reply's text, its function calls as
 * `toolsCalled`, token counts, and errors. A stream's span ends when the stream ends; one that
 * fails or is left before its last chunk is recorded as ERRORED.
 *
 * A call with automatic function calling (callable tools in `config.tools`, such as
 * `mcpToTool(client)`: the SDK calls the tools and the model again, in that one call) is an agent
 * span `gemini.automaticFunctionCalling` (the call's input, the final answer, `availableTools`)
 * holding one llm span per model request, each with its own input, output, tokens and
 * `toolsCalled`, and a tool span per function call a callable tool answered, in the order they ran.
 *
 * `models.embedContent` is an llm span too (`gemini.embedContent`: the texts, the embedding count,
 * input tokens when the reply has them); `models.countTokens`, which asks no model for anything, a
 * base span (`gemini.countTokens`, the total in its output and metadata). The client and its
 * objects are left as the SDK made them (no property of theirs is replaced or added): the
 * methods their calls reach are hooked on the SDK's `Models` class, and record the calls of the
 * `models` objects wrapped. The promises, responses, generators and errors the app gets are the
 * SDK's own, and the reply's `text` getter is never read (it warns on a function-call reply).
 * Wrapping twice is wrapping once (the latest options apply).
 *
 * @example
 * import { GoogleGenAI } from "@google/genai";
 * import { wrapGoogleGenAI } from "evaltrace/google-genai";
 * const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey }), { metricCollection: "answers" });
 */
export function wrapGoogleGenAI<T extends object>(client: T, options: WrapGoogleGenAIOptions = {}): T {
  try {
    const models = (client as { models?: unknown }).models;
    if (!isObject(models)) {
      reportUnexpectedClient("wrapGoogleGenAI", "the client has no models");
      return client;
    }
    const existing = stateOf(models);
    if (existing) {
      existing.options = options;
      return client;
    }
    if (typeof models.generateContent !== "function" && typeof models.generateContentStream !== "function") {
      reportUnexpectedClient("wrapGoogleGenAI", "the client has no models.generateContent nor models.generateContentStream");
      return client;
    }
    if (hookModels(models, stateOf) === 0) {
      reportUnexpectedClient("wrapGoogleGenAI", "the client's models has none of the methods its calls go through (generateContentInternal...)");
      return client;
    }
    instrumented().set(models, { options });
    netGenAIClient(models.apiClient);
  } catch (err) {
    // A client we cannot read is left as it is.
    reportWrapFailure("wrapGoogleGenAI", err);
  }
  return client;
}
