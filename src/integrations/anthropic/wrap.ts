import { context } from "@opentelemetry/api";
import { registry } from "../../runtime/registry.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { isObject, type Message, type ModelWrapOptions, owningCall, quietly } from "../kit/model-call.js";
import { netStainlessClient } from "../net/index.js";
import { watchApiPromiseClass, watchApiPromisesOf } from "../kit/api-promise-watch.js";
import { replaceInheritedMethod } from "../kit/prototype-method.js";
import { tracedClients } from "../kit/traced-clients.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";
import { inputMessages, observe } from "./call.js";

/** Options of {@link wrapAnthropic}. */
export interface WrapAnthropicOptions extends ModelWrapOptions {}

/**
 * The messages resources: where a client holds each one (`at`), where the client class names its
 * class (`cls`: its first name is the kind a zero-code rule is asked about), and its span's name.
 * The SDK's helpers (`stream`, `parse`, tool runners, message threads) go through their `create`.
 */
const RESOURCES: readonly { name: string; at: readonly string[]; cls: readonly string[] }[] = [
  { name: "anthropic.messages", at: ["messages"], cls: ["Messages"] },
  // The beta surface has the same shape; it shares the options.
  { name: "anthropic.beta.messages", at: ["beta", "messages"], cls: ["Beta", "Messages"] },
];

const clients = tracedClients<WrapAnthropicOptions>("anthropic");

type Fn = (...args: unknown[]) => unknown;

const get = (root: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((at, key) => (at !== null && (typeof at === "object" || typeof at === "function") ? (at as Record<string, unknown>)[key] : undefined), root);

/**
 * Instruments an Anthropic client (`@anthropic-ai/sdk`) and returns it: every
 * `messages.create` (streamed or not), `messages.stream` and `messages.parse`, and the same on
 * `beta.messages`, becomes one llm span: model, provider `Anthropic`, the system prompt and
 * messages as plain text (tool use and tool results included), the reply's text, its tool calls
 * as `toolsCalled`, token counts (the cache tokens in metadata), and errors. A stream's span ends
 * when the stream ends; a stream that ends early (aborted, or left with `break`) is ERRORED.
 *
 * The client is not changed at all (its own properties, and its resources', are the SDK's: the
 * methods are patched once on the SDK's classes, and a call is traced when its client was
 * wrapped): the SDK's promises (`.withResponse()`, `.asResponse()`), streams, errors and their
 * timing are exactly what the raw client gives. Wrapping twice is wrapping once (the latest
 * options apply); a `withOptions()` copy is wrapped too. Clients the app did not wrap are not traced.
 *
 * When an `EvaltraceSpanProcessor` sees the app's OpenTelemetry spans, the SDK's own span of a
 * call would be a second llm span of it: the wrapped client does not start it (the call is still
 * traced once, by this span; the app's other exporters then miss that one SDK span).
 *
 * @example
 * import Anthropic from "@anthropic-ai/sdk";
 * import { wrapAnthropic } from "evaltrace/anthropic";
 * const anthropic = wrapAnthropic(new Anthropic(), { metricCollection: "answers" });
 */
export function wrapAnthropic<T extends object>(client: T, options: WrapAnthropicOptions = {}): T {
  try {
    if (!isObject(get(client, ["messages"]))) {
      reportUnexpectedClient("wrapAnthropic", "the client has no messages");
      return client;
    }
    let found = false;
    for (const r of RESOURCES) {
      const resource = get(client, r.at);
      if (isObject(resource) && typeof resource.create === "function") found = traceResource(Object.getPrototypeOf(resource), r.name, r.cls[0]!) || found;
    }
    if (!found) {
      reportUnexpectedClient("wrapAnthropic", "the client has no messages.create");
      return client;
    }
    clients.add(client, options, true);
    hookClientClass(Object.getPrototypeOf(client));
    netStainlessClient("anthropic", client);
  } catch (err) {
    // A client we cannot read is left as it is.
    reportWrapFailure("wrapAnthropic", err);
  }
  return client;
}

/**
 * Zero-code: patches the messages classes of an `@anthropic-ai/sdk` package (its client class's
 * statics) and its `APIPromise` class when the package loads, and traces the calls of every client
 * that `rule` accepts (a client the app wrapped keeps its own options). Never throws.
 */
export function traceAnthropicClasses(exports: Record<string, unknown>, clientExport: string, rule: (client: object, kind: string) => WrapAnthropicOptions | undefined): void {
  try {
    const clientClass = exports[clientExport] ?? exports.default;
    if (typeof clientClass !== "function") return;
    clients.every(rule);
    watchApiPromiseClass(exports.APIPromise);
    for (const r of RESOURCES) {
      const cls = get(clientClass, r.cls);
      if (typeof cls === "function") traceResource(cls.prototype, r.name, r.cls[0]!);
    }
    hookClientClass(clientClass.prototype);
  } catch (err) {
    reportWrapFailure("@anthropic-ai/sdk (zero-code)", err);
  }
}

/** The client class: a `withOptions()` copy of a wrapped client is wrapped with its options; the APIPromise class hooked before the first call. */
function hookClientClass(proto: unknown): void {
  watchApiPromisesOf(proto);
  replaceInheritedMethod(proto, "withOptions", "anthropic.withOptions", (original) =>
    function (this: unknown, ...args: unknown[]) {
      const copy = original.apply(this, args);
      const options = clients.wrapped(this);
      if (options && isObject(copy)) wrapAnthropic(copy, options);
      return copy;
    },
  );
}

/** The traced client of a call on a messages resource (`self`), with its options; undefined: the SDK's own call. */
function tracedClientOf(self: unknown, kind: string): { client: object; options: WrapAnthropicOptions } | undefined {
  const client = isObject(self) ? self._client : undefined;
  const options = clients.optionsFor(client, kind);
  return options && isObject(client) ? { client, options } : undefined;
}

/**
 * Patches the class of one messages resource (`res`: its class's prototype; methods of the
 * object's own are never replaced), once: `create` opens the call's span and `stream` keeps the SDK's own span from doubling it,
 * for calls of traced clients. False when it has no `create`.
 */
function traceResource(res: unknown, name: string, kind: string): boolean {
  const patched = replaceInheritedMethod(res, "create", "anthropic.create", (original) => patchedCreate(original, name, kind));
  if (patched)
    replaceInheritedMethod(res, "stream", "anthropic.stream", (original) =>
      function stream(this: unknown, ...args: unknown[]) {
        const traced = tracedClientOf(this, kind);
        return traced ? runWithoutSdkSpan(traced.client, () => original.apply(this, args)) : original.apply(this, args);
      },
    );
  return patched;
}

/**
 * Runs `call` with the client's own OpenTelemetry tracer put aside when an EvaltraceSpanProcessor
 * would read its span: the SDK starts its call span synchronously inside `create` / `stream`, so
 * only that start is affected, not what the app runs later.
 */
function runWithoutSdkSpan<R>(client: object, call: () => R): R {
  const sdk = client as { _tracer?: unknown };
  let saved: unknown;
  let swapped = false;
  try {
    if (registry().bridged && sdk._tracer !== undefined && Object.hasOwn(sdk, "_tracer")) {
      saved = sdk._tracer;
      sdk._tracer = undefined;
      swapped = true;
    }
  } catch {
    swapped = false;
  }
  try {
    return call();
  } finally {
    if (swapped) quietly(() => (sdk._tracer = saved));
  }
}

function patchedCreate(original: Fn, name: string, kind: string): Fn {
  return function create(this: unknown, ...args: unknown[]) {
    const traced = tracedClientOf(this, kind);
    if (!traced) return original.apply(this, args);
    const { client, options } = traced;
    const params = args[0];
    const requestOptions = args[1];
    let span: ManualSpan | undefined;
    let input: Message[] = [];
    let streamed = false;
    try {
      const p = isObject(params) ? params : {};
      streamed = p.stream === true;
      input = inputMessages(p);
      const helper = isObject(requestOptions) && isObject(requestOptions.headers) ? requestOptions.headers["x-stainless-helper-method"] : undefined;
      span = openSpan(`${name}.${helper === "stream" ? "stream" : "create"}`, "llm", { model: p.model, provider: "Anthropic" }, input);
      if (span) {
        span.setIntegration("Anthropic");
        if (options.metricCollection) span.set({ metricCollection: options.metricCollection });
      }
    } catch {
      span = undefined;
    }
    if (!span) return original.apply(this, args);
    const open = span;
    let result: unknown;
    try {
      result = context.with(owningCall(open.context), () => runWithoutSdkSpan(client, () => original.apply(this, args)));
    } catch (err) {
      open.fail(err);
      throw err;
    }
    const signal = isObject(requestOptions) && typeof AbortSignal !== "undefined" && requestOptions.signal instanceof AbortSignal ? requestOptions.signal : undefined;
    quietly(() => observe(result, streamed, open, options, input, signal));
    return result;
  };
}

