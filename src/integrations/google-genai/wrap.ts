import { afcStep, define, usesAfc } from "./afc.js";
import { afcCall, modelCall } from "./calls.js";
import { countTokensCall, embedCall } from "./embeddings.js";
import type { State, WrapGoogleGenAIOptions } from "./options.js";
import { isObject } from "../kit/model-call.js";
import { netGenAIClient } from "../net/index.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** Where a wrapped `models` module keeps its state (shared by every copy of evaltrace). */
const WRAPPED = Symbol.for("evaltrace.google-genai.wrapped");

type Fn = (...args: unknown[]) => unknown;

/**
 * Instruments a Google GenAI client (`@google/genai`) in place and returns it: every
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
 * The SDK assigns these methods on each `models` object, so the wrapper patches that object (not
 * the class). `models.embedContent` is an llm span too (`gemini.embedContent`: the texts, the
 * embedding count, input tokens when the reply has them); `models.countTokens`, which asks no
 * model for anything, a base span (`gemini.countTokens`, the total in its output and metadata).
 * The promises, responses, generators and errors the app gets are the SDK's own, and
 * the reply's `text` getter is never read (it warns on a function-call reply). Wrapping twice is
 * wrapping once (the latest options apply).
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
    const existing = models[WRAPPED] as State | undefined;
    if (existing) {
      existing.options = options;
      return client;
    }
    const state: State = { options };
    const generate = models.generateContent;
    const stream = models.generateContentStream;
    // One model request each (prototype methods the SDK reaches through `this`): automatic
    // function calling calls them once per request, directly or through continuation hops.
    const request = models.generateContentInternal;
    const streamRequest = models.generateContentStreamInternal;
    if (typeof generate !== "function" && typeof stream !== "function") {
      reportUnexpectedClient("wrapGoogleGenAI", "the client has no models.generateContent nor models.generateContentStream");
      return client;
    }
    // The SDK's own methods are writable, enumerable instance fields: `define` keeps them so.
    define(models, WRAPPED, state);
    if (typeof generate === "function") define(models, "generateContent", patched(models, generate as Fn, false, state));
    if (typeof stream === "function") define(models, "generateContentStream", patched(models, stream as Fn, true, state));
    if (typeof request === "function") define(models, "generateContentInternal", afcRequest(models, request as Fn, false, state));
    if (typeof streamRequest === "function") define(models, "generateContentStreamInternal", afcRequest(models, streamRequest as Fn, true, state));
    netGenAIClient(models.apiClient);
    const embed = models.embedContent;
    const count = models.countTokens;
    if (typeof embed === "function") define(models, "embedContent", patchedCall(models, (self, args) => embedCall(self, embed as Fn, args, state)));
    if (typeof count === "function") define(models, "countTokens", patchedCall(models, (self, args) => countTokensCall(self, count as Fn, args)));
  } catch (err) {
    // A client we cannot read is left as it is.
    reportWrapFailure("wrapGoogleGenAI", err);
  }
  return client;
}

/** A method whose calls `run` records, with the SDK's `this` (the `models` object when called unbound). */
function patchedCall(models: object, run: (self: unknown, args: unknown[]) => unknown): Fn {
  return function (this: unknown, ...args: unknown[]) {
    return run(this ?? models, args);
  };
}

/** The app's call: an llm span, or, with automatic function calling, the run's agent span. */
function patched(models: object, original: Fn, streamed: boolean, state: State): Fn {
  return function (this: unknown, ...args: unknown[]) {
    const self = this ?? models;
    let afc = false;
    try {
      afc = isObject(args[0]) && usesAfc(args[0]);
    } catch {
      afc = false;
    }
    return afc ? afcCall(self, original, args, streamed) : modelCall(self, original, args, streamed, state);
  };
}

/** One model request inside an AFC run's loop: an llm span of its own; anywhere else the SDK's own. */
function afcRequest(models: object, original: Fn, streamed: boolean, state: State): Fn {
  return function (this: unknown, ...args: unknown[]) {
    const self = this ?? models;
    let step = false;
    try {
      step = afcStep();
    } catch {
      step = false;
    }
    return step ? modelCall(self, original, args, streamed, state) : original.apply(self, args);
  };
}
