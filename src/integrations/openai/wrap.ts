import { context } from "@opentelemetry/api";
import { watchApiPromiseClass, watchApiPromisesOf } from "../kit/api-promise-watch.js";
import { watchStreamClass } from "../kit/iterated-once.js";
import { owningCall, quietly } from "../kit/model-call.js";
import { replaceInheritedMethod } from "../kit/prototype-method.js";
import { tracedClients } from "../kit/traced-clients.js";
import { netStainlessClient } from "../net/index.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";
import { observeCall } from "./api-promise.js";
import { startCall } from "./call.js";
import type { Api } from "./content.js";
import type { WrapOpenAIOptions } from "./options.js";

/**
 * The resources whose `create` reaches a model: where a client holds each one (`at`), where the
 * client class names its class (`cls`: its first name is the kind a zero-code rule is asked about).
 * Every helper of the SDK (`parse`, `stream`, `runTools`) goes through one of these `create`s.
 */
const RESOURCES: readonly { api: Api; at: readonly string[]; cls: readonly string[] }[] = [
  { api: "chat", at: ["chat", "completions"], cls: ["Chat", "Completions"] },
  { api: "responses", at: ["responses"], cls: ["Responses"] },
  { api: "embeddings", at: ["embeddings"], cls: ["Embeddings"] },
  // openai 6's beta Responses API has its own resource (its `create` only, streamed or not).
  { api: "responses", at: ["beta", "responses"], cls: ["Beta", "Responses"] },
];

const clients = tracedClients<WrapOpenAIOptions>("openai");

const get = (root: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((at, key) => (at !== null && (typeof at === "object" || typeof at === "function") ? (at as Record<string, unknown>)[key] : undefined), root);

/**
 * Instruments an OpenAI client: every call that reaches a model is one llm span (model, messages
 * with tool calls and tool results, output, tool calls as `toolsCalled`, token counts), whichever
 * method made it: `chat.completions.create` / `.parse` / `.stream` / `.runTools`,
 * `responses.create` / `.parse` / `.stream`, `beta.responses.create`, `embeddings.create`, streamed
 * or not; a stream's span ends when the app has consumed it. The client is returned as it is, not
 * changed at all (its own properties, and its resources', are the SDK's: the methods are patched
 * once on the SDK's classes, and a call is traced when its client was wrapped). The methods return
 * the SDK's own promises (`.withResponse()`, `.asResponse()` work, and nothing reads a body the
 * app did not ask for), errors are the SDK's own at the same moment, `#private` members work, and
 * a `withOptions()` copy is traced too. Wrapping twice changes nothing. Clients the app did not
 * wrap are not traced.
 *
 * @example
 * import OpenAI from "openai";
 * import { wrapOpenAI } from "evaltrace/openai";
 * const openai = wrapOpenAI(new OpenAI(), { metricCollection: "answers" });
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  try {
    if (clients.wrapped(client)) return client;
    let found = false;
    for (const r of RESOURCES) {
      const resource = get(client, r.at);
      if (resource !== null && typeof resource === "object" && typeof (resource as { create?: unknown }).create === "function") found = traceCreate(Object.getPrototypeOf(resource), r.api, r.cls[0]!) || found;
    }
    if (!found) {
      reportUnexpectedClient("wrapOpenAI", "the client has no chat.completions.create, responses.create nor embeddings.create");
      return client;
    }
    clients.add(client, options);
    hookClientClass(Object.getPrototypeOf(client));
    netStainlessClient("openai", client);
  } catch (err) {
    // A client of an unexpected shape stays as it was.
    reportWrapFailure("wrapOpenAI", err);
  }
  return client;
}

/**
 * Zero-code: patches the resource classes of an `openai` package (its client class's statics) and
 * its `APIPromise` class when the package loads, and traces the calls of every client that `rule`
 * accepts (a client the app wrapped keeps its own options). Never throws.
 */
export function traceOpenAIClasses(exports: Record<string, unknown>, clientExport: string, rule: (client: object, kind: string) => WrapOpenAIOptions | undefined): void {
  try {
    const clientClass = exports[clientExport] ?? exports.default;
    if (typeof clientClass !== "function") return;
    clients.every(rule);
    watchApiPromiseClass(exports.APIPromise);
    for (const r of RESOURCES) {
      const cls = get(clientClass, r.cls);
      if (typeof cls === "function") traceCreate(cls.prototype, r.api, r.cls[0]!);
    }
    hookClientClass(clientClass.prototype);
  } catch (err) {
    reportWrapFailure("openai (zero-code)", err);
  }
}

/**
 * The client class: a `withOptions()` copy of a wrapped client is wrapped with its options; the
 * APIPromise class is hooked before the first call, and the Stream class before the first stream.
 */
function hookClientClass(proto: unknown): void {
  watchApiPromisesOf(proto);
  // openai 7 parses every response through the client's `parseResponseWithTimeout`, and its chat
  // `create` then makes the Stream's iterator its own (chunk normalization, binding the class's
  // method): the Stream class is hooked as the parse gives the stream, before that, even in the
  // process's first call (the package exports no Stream class to hook when it loads).
  replaceInheritedMethod(proto, "parseResponseWithTimeout", "openai.streamClass", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const parsed = original.apply(this, args);
      quietly(() => {
        if (parsed !== null && typeof parsed === "object" && typeof (parsed as { then?: unknown }).then === "function") (parsed as Promise<unknown>).then(watchStreamClass, () => undefined);
      });
      return parsed;
    },
  );
  replaceInheritedMethod(proto, "withOptions", "openai.withOptions", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const copy = original.apply(this, args);
      const options = clients.wrapped(this);
      if (options && copy !== null && typeof copy === "object") wrapOpenAI(copy, options);
      return copy;
    },
  );
}

/**
 * Puts the span-making `create` on the class of a resource (`proto`: its class's prototype; a
 * `create` of the object's own is never replaced), once: a call is traced when its resource's client (`this._client`) is traced; any
 * other call is the SDK's own. False when there is no `create` to patch.
 */
function traceCreate(proto: unknown, api: Api, kind: string): boolean {
  return replaceInheritedMethod(proto, "create", "openai.create", (original) =>
    function create(this: unknown, ...args: unknown[]): unknown {
      const options = this !== null && typeof this === "object" ? clients.optionsFor((this as { _client?: unknown })._client, kind) : undefined;
      const call = options ? startCall(api, args[0], args[1], options) : undefined;
      if (!call) return original.apply(this, args);
      let result: unknown;
      try {
        result = context.with(owningCall(call.span.context), () => original.apply(this, args));
      } catch (err) {
        call.span.fail(err);
        throw err;
      }
      observeCall(result, call);
      return result;
    },
  );
}
