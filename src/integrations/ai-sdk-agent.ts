import { leftToAiSdk } from "./net/index.js";
import { context } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";
import { streamTextWatched } from "./ai-sdk.js";
import { quietly } from "./kit/model-call.js";

type Options = Record<string, unknown>;
type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The AI SDK's agent classes, as the package exports them (AI SDK 5's `Experimental_Agent`, 6
 * and 7's `ToolLoopAgent`, also exported as `Experimental_Agent`), and their methods that call a
 * model: each calls the SDK's own `generateText` / `streamText` from inside the package, never
 * through its exports, so a hook on the exported functions does not see them.
 */
export const AI_SDK_AGENT_CLASSES = ["ToolLoopAgent", "Experimental_Agent"] as const;
const AGENT_METHODS = { generate: "generateText", stream: "streamText" } as const;

/** Marks a patched method (any copy of evaltrace): its value is the original. */
const PATCHED = Symbol.for("evaltrace.ai.agentMethod");

/** What the agent hook asks of the one who installs it. */
export interface AgentHookOptions {
  /** Whether the hook records now. */
  on(): boolean;
  /**
   * The telemetry options a call should run with (the app's own, `undefined` for none, telemetry
   * turned on where it left it unset), or the same value when they stay as they are.
   */
  withTelemetry(telemetry: unknown): unknown;
}

const isObject = (v: unknown): v is Options => v !== null && typeof v === "object" && !Array.isArray(v);

/** The agent's settings (its constructor's options, kept as `settings`). */
function settingsOf(agent: unknown): Options {
  const settings = isObject(agent) ? agent.settings : undefined;
  return isObject(settings) ? settings : {};
}

/** Whether the app turned telemetry off for this call or this agent (`isEnabled: false`). */
function turnedOff(settings: Options, options: Options): boolean {
  for (const t of [options.telemetry, options.experimental_telemetry, settings.telemetry, settings.experimental_telemetry]) {
    if (isObject(t) && t.isEnabled === false) return true;
  }
  return false;
}

/**
 * The call's options with telemetry turned on as for the exported functions: the agent merges
 * the call's options over its settings, so the settings' telemetry is the one the call would get.
 */
function withAgentTelemetry(settings: Options, options: Options, hook: AgentHookOptions): Options {
  if (options.telemetry !== undefined || settings.telemetry !== undefined) return options;
  const own = options.experimental_telemetry ?? settings.experimental_telemetry;
  const telemetry = hook.withTelemetry(own);
  return telemetry === own ? options : { ...options, experimental_telemetry: telemetry };
}

/** The agent span's name: the agent's `id`, else its class. */
function agentName(agent: unknown, settings: Options): string {
  if (typeof settings.id === "string" && settings.id) return settings.id;
  const ctor = isObject(agent) ? (agent.constructor as { name?: unknown } | undefined) : undefined;
  return typeof ctor?.name === "string" && ctor.name ? ctor.name : "Agent";
}

function openAgentSpan(agent: unknown, settings: Options, options: Options): ManualSpan | undefined {
  let span: ManualSpan | undefined;
  quietly(() => {
    const tools = isObject(settings.tools) ? Object.keys(settings.tools).slice(0, 200) : [];
    span = openSpan(agentName(agent, settings), "agent", { availableTools: tools }, options.prompt ?? options.messages);
    span?.setIntegration("AI SDK");
  });
  return span;
}

/** A generate result's reply: its text. */
function replyOf(result: unknown): unknown {
  return isObject(result) ? result.text : undefined;
}

/**
 * The option of the SDK's end callback an agent's `stream()` passes on: AI SDK 7's agents keep
 * `onEnd` in their settings (the constructor sets it) and merge the call's with it; AI SDK 5 and
 * 6 merge the call's options over the settings, so the call's `onFinish` replaces theirs.
 */
function finishOption(settings: Options, options: Options): { key: string; own: unknown } {
  if ("onEnd" in settings) return { key: "onEnd", own: options.onEnd ?? options.onFinish };
  return { key: "onFinish", own: options.onFinish ?? settings.onFinish };
}

function patchedMethod(original: Method, kind: keyof typeof AGENT_METHODS, hook: AgentHookOptions): Method {
  const fn: Method = function (this: unknown, ...args: unknown[]) {
    if (!hook.on()) return original.apply(this, args);
    // The agent's model calls are the AI SDK's: traced through its telemetry, or not at all where
    // the app turned that off; the net under the providers stays out of them.
    return leftToAiSdk(() => agentCall(this, original, kind, hook, args));
  };
  Object.defineProperty(fn, PATCHED, { value: original });
  Object.defineProperty(fn, "name", { value: original.name, configurable: true });
  return fn;
}

/** One `generate`/`stream` call of an agent, traced: its agent span, its model calls with telemetry on. */
function agentCall(self: unknown, original: Method, kind: keyof typeof AGENT_METHODS, hook: AgentHookOptions, args: unknown[]): unknown {
  const options = args[0];
  if (!isObject(options)) return original.apply(self, args);
  let settings: Options = {};
  let call: Options | undefined;
  try {
    settings = settingsOf(self);
    // First: the tracer the telemetry gets is made on first use, with the span processor that
    // puts our spans in OpenTelemetry's context, where the SDK's spans find their parent.
    if (!turnedOff(settings, options)) call = withAgentTelemetry(settings, options, hook);
  } catch {
    // Settings or options we cannot read (a getter that throws): the call runs as the app wrote it.
  }
  if (call === undefined) return original.apply(self, args);
  const span = openAgentSpan(self, settings, options);
  if (!span) return original.apply(self, args);
  const rest = args.slice(1);
  if (kind === "stream") {
    const { key, own } = finishOption(settings, call);
    const withEnd: Options = { ...call, [key]: own };
    // The call's callbacks replace the settings' (onChunk, and onAbort before AI SDK 7): ours ride on the one that runs.
    for (const k of ["onChunk", "onAbort"]) if (withEnd[k] === undefined && settings[k] !== undefined) withEnd[k] = settings[k];
    return streamTextWatched(withEnd, (watched) => original.apply(self, [watched, ...rest]), span, key);
  }
  let result: unknown;
  try {
    result = context.with(span.context, () => original.apply(self, [call, ...rest]));
  } catch (err) {
    span.fail(err);
    throw err;
  }
  if (result instanceof Promise) {
    result.then(
      (r: unknown) => span.end(replyOf(r)),
      (err: unknown) => span.fail(err),
    );
  } else span.end(replyOf(result));
  return result;
}

/**
 * Wraps `generate` and `stream` of the AI SDK's agent classes in `exports` (once per class, on
 * its prototype): each call is an agent span (the agent's `id`, its tools, the prompt and the
 * reply), its model calls run with telemetry turned on as the exported functions' are, under it,
 * and a stream is watched until the app has read it ({@link streamTextWatched}). What the
 * methods return and throw is unchanged. Never throws.
 */
export function instrumentAiSdkAgents(exports: Options, hook: AgentHookOptions): void {
  for (const name of AI_SDK_AGENT_CLASSES) {
    quietly(() => {
      const cls = exports[name];
      const proto = typeof cls === "function" ? (cls.prototype as Options | undefined) : undefined;
      if (!proto) return;
      for (const kind of Object.keys(AGENT_METHODS) as (keyof typeof AGENT_METHODS)[]) {
        const original = proto[kind];
        if (typeof original !== "function" || (original as { [PATCHED]?: unknown })[PATCHED]) continue;
        Object.defineProperty(proto, kind, { value: patchedMethod(original as Method, kind, hook), writable: true, configurable: true, enumerable: false });
      }
    });
  }
}
