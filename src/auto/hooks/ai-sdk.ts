import type { Tracer } from "@opentelemetry/api";
import type * as OtelTraceBase from "@opentelemetry/sdk-trace-base";
import { zeroCodeSpanProcessor } from "../../bridge/span-processor.js";
import { streamTextWatched, unwatched } from "../../integrations/ai-sdk.js";
import { leftToAiSdk, netProviderPost } from "../../integrations/net/index.js";
import { instrumentAiSdkAgents } from "../../integrations/ai-sdk-agent.js";
import { consoleLogger } from "../../logger.js";
import { processWide } from "../../process-wide.js";
import { currentRuntime } from "../../runtime/configure.js";
import { hookDependencies } from "../dependencies.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** The AI SDK functions that call a model; each takes one options object with `experimental_telemetry`. */
const traced = ["generateText", "streamText", "generateObject", "streamObject", "embed", "embedMany"] as const;

const PATCHED = Symbol.for("evaltrace.auto.ai");

const TRACE_BASE = "@opentelemetry/sdk-trace-base";

/**
 * `@opentelemetry/sdk-trace-base`, loaded at the first traced call (not when evaltrace is
 * imported), from `@evaltrace/auto`, which carries it for zero-code.
 */
function loadTraceBase(): typeof OtelTraceBase {
  const found = hookDependencies();
  if (!found) throw new Error("@evaltrace/auto is not installed");
  return found.require(TRACE_BASE) as typeof OtelTraceBase;
}

/**
 * `@opentelemetry/sdk-trace-base` (its `BasicTracerProvider` makes the AI SDK's spans), or
 * undefined when it cannot be loaded (it is not a dependency of every install): said once in
 * the log, and the AI SDK's calls then run untraced, as the app wrote them.
 */
function traceBase(): typeof OtelTraceBase | undefined {
  const state = processWide("auto.aiTraceBase", () => ({ failed: false }));
  if (state.failed) return undefined;
  try {
    return loadTraceBase();
  } catch (error) {
    state.failed = true;
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    (currentRuntime()?.logger ?? consoleLogger()).warn(
      `zero-code: AI SDK calls are not traced: ${TRACE_BASE}, which makes their spans, could not be loaded (${reason}). Install it (npm install ${TRACE_BASE}) to trace them.`,
    );
    return undefined;
  }
}

/** A tracer of our own provider (never the app's global one), whose spans the EvaltraceSpanProcessor maps; undefined without sdk-trace-base. */
function tracer(): Tracer | undefined {
  const base = traceBase();
  return base && processWide("auto.aiTracer", () => new base.BasicTracerProvider({ spanProcessors: [zeroCodeSpanProcessor()] }).getTracer("ai"));
}

/**
 * The call's options with telemetry on and our tracer, when the app left `isEnabled` unset; an
 * app that set it (to true with its own tracer or provider, or to false) keeps its choice.
 */
function withTelemetry(options: unknown): unknown {
  if (!isOn("ai") || options === null || typeof options !== "object" || Array.isArray(options)) return options;
  try {
    const own = (options as { experimental_telemetry?: unknown }).experimental_telemetry;
    const telemetry = telemetryOn(own);
    return telemetry === own ? options : { ...options, experimental_telemetry: telemetry };
  } catch {
    // Options we cannot copy (a getter that throws) go to the SDK as they are.
    return options;
  }
}

/** `experimental_telemetry` turned on with our tracer where the app left `isEnabled` unset; else as it was. */
function telemetryOn(telemetry: unknown): unknown {
  if (telemetry !== undefined && (telemetry === null || typeof telemetry !== "object")) return telemetry;
  const set = telemetry as { isEnabled?: unknown } | undefined;
  if (set?.isEnabled !== undefined) return telemetry;
  const ours = tracer();
  if (ours === undefined) return telemetry;
  return { ...set, isEnabled: true, tracer: ours };
}

function patched(original: Fn, name: (typeof traced)[number]): Fn {
  const fn: Fn = function (this: unknown, ...args: unknown[]) {
    if (!isOn("ai")) return original.apply(this, args);
    if (args.length > 0) args[0] = withTelemetry(args[0]);
    const options = args[0];
    if (name === "streamText" && options !== null && typeof options === "object" && !Array.isArray(options)) {
      return leftToAiSdk(() => streamTextWatched(options as Record<string, unknown>, (watched) => original.apply(this, [watched, ...args.slice(1)])));
    }
    return leftToAiSdk(() => unwatched(() => original.apply(this, args)));
  };
  Object.defineProperty(fn, PATCHED, { value: original });
  Object.defineProperty(fn, "name", { value: original.name, configurable: true });
  return fn;
}

/** How each request function of `@ai-sdk/provider-utils` carries its JSON body. */
const providerPosts: Record<string, (options: Record<string, unknown>) => unknown> = {
  postJsonToApi: (o) => o.body,
  postToApi: (o) => (o.body as { values?: unknown } | undefined)?.values,
};

const NETTED = Symbol.for("evaltrace.auto.ai.providerNet");

/**
 * `@ai-sdk/provider-utils`, through which every AI SDK provider sends its requests: the net
 * under them (integrations/net/ai-sdk-provider.ts) records a model request nobody else does (an
 * agent framework's own loop over AI SDK providers, such as Mastra's; a call with telemetry off).
 */
function netProviderUtils(exports: Record<string, unknown>): unknown {
  const replacements: Record<string, Fn> = {};
  for (const [name, bodyOf] of Object.entries(providerPosts)) {
    const original = exports[name];
    if (typeof original !== "function" || (original as { [NETTED]?: unknown })[NETTED]) continue;
    const fn = netProviderPost(original as (options: unknown) => unknown, bodyOf, () => isOn("ai")) as Fn;
    Object.defineProperty(fn, NETTED, { value: original });
    replacements[name] = fn;
  }
  return withReplacements(exports, replacements);
}

/** The exports with `replacements` assigned, or, where they are read-only (CommonJS getters), served through a proxy. */
function withReplacements(exports: Record<string, unknown>, replacements: Record<string, Fn>): unknown {
  let assigned = true;
  for (const [name, fn] of Object.entries(replacements)) {
    try {
      exports[name] = fn;
    } catch {
      // A read-only export: served through the proxy below.
    }
    if (exports[name] !== fn) assigned = false;
  }
  if (assigned) return exports;
  return new Proxy(exports, {
    get: (target, key, receiver) => (typeof key === "string" && Object.hasOwn(replacements, key) ? replacements[key] : Reflect.get(target, key, receiver)),
  });
}

/**
 * `ai` (the Vercel AI SDK): its telemetry is OpenTelemetry spans, off unless a call asks for
 * them. Zero-code turns it on for calls that leave `experimental_telemetry.isEnabled` unset,
 * with a tracer of evaltrace's own (the app's global provider is not touched), so those calls
 * are traced through the `EvaltraceSpanProcessor` mapping (on AI SDK 7, whose telemetry is its
 * registered integrations, `@ai-sdk/otel`'s spans are). A `streamText` is watched until the app
 * has read it to its end, so that one aborted, cut short or never read ends ERRORED, saying so,
 * with the text streamed so far (integrations/ai-sdk.ts). The SDK's agents (`ToolLoopAgent`)
 * call generateText and streamText from inside the package, past the exports: their `generate`
 * and `stream` are wrapped on the class (integrations/ai-sdk-agent.ts), each call an agent span
 * whose model calls get the same telemetry. The ESM namespace gets the patched
 * functions; the CommonJS exports (read-only getters) are served through a proxy of themselves.
 */
export const aiSdkHook: LibraryHook = {
  library: "ai",
  packageName: "ai",
  versions: [">=4"],
  replaces: [...traced],
  modules: [{ packageName: "@ai-sdk/provider-utils", versions: [">=2"], onLoad: netProviderUtils, replaces: Object.keys(providerPosts) }],
  onLoad(exports) {
    instrumentAiSdkAgents(exports, { on: () => isOn("ai"), withTelemetry: telemetryOn });
    const replacements: Record<string, Fn> = {};
    for (const name of traced) {
      const original = exports[name];
      if (typeof original !== "function" || (original as { [PATCHED]?: unknown })[PATCHED]) continue;
      replacements[name] = patched(original as Fn, name);
    }
    return withReplacements(exports, replacements);
  },
};
