import { type Context, context } from "@opentelemetry/api";
import { toText } from "../../spans/serialize.js";
import { currentObservedSpan } from "../../tracing/context.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { processWide } from "../../process-wide.js";
import { type Fn as KitFn, replaceMethod } from "../kit/prototype-method.js";
import { methodHolder } from "../kit/class-method.js";
import { isObject, type Message, quietly } from "../kit/model-call.js";
import { methodLike } from "./method-like.js";

/**
 * Automatic function calling (AFC) of `@google/genai`: one `models.generateContent` (or
 * `generateContentStream`) whose `config.tools` hold callable tools (objects with `tool()` and
 * `callTool(functionCalls)`, such as `mcpToTool(client)`) makes several model requests itself:
 * it sends the request, calls the tools the model asked for, sends their results back, and so on
 * until the model answers in text. The run is recorded as an agent span (the app's one call: its
 * input and the final answer, `availableTools`), with, under it, one llm span per model request
 * (recorded by `calls.ts`: a stream's steps run in the run's context, {@link afcStep}; a
 * non-streamed run's are found by their params, `afc-loop.ts`) and one tool span per function
 * call a callable tool answered.
 */

/** The context key of a run (Symbol.for: the ESM and CommonJS copies of evaltrace share it). */
const RUN = Symbol.for("evaltrace.google-genai.afc");

type Fn = (...args: unknown[]) => unknown;
type Declared = Map<string, string | undefined>;

/** One automatic-function-calling run: its agent span and the context the SDK's loop runs in. */
export interface AfcRun {
  readonly span: ManualSpan;
  /** The agent span's context, marked as this run's: run the SDK's call (and a stream's steps) in it. */
  readonly ctx: Context;
  /** Ends the agent span with the final answer and the tools the callables declared. */
  end(output: string): void;
  /** The callable tools whose calls the run records (those it could instrument). */
  readonly tools: readonly object[];
}

interface RunState {
  /** The agent span as the context holds it: the SDK's steps run with it as the current span. */
  observed: unknown;
  tools: object[];
}

/** What each callable tool declared (function name → description), from its own `tool()`. */
const declarations = new WeakMap<object, Declared>();

/** The callable tools instrumented (process-wide: another copy of evaltrace does not patch them again). */
const instrumented = (): WeakSet<object> => processWide("googleGenAICallables", () => new WeakSet<object>());

/**
 * A non-streamed run's loop watches its tool calls: `generateContent` calls the tools from its own
 * loop, in the app's context, so a tool's call finds its run here (the latest open run holding it).
 */
export interface ToolWatch {
  readonly run: AfcRun;
  /** A tool call of the run settled (failed: with its error). */
  settled(err?: unknown): void;
}
const toolRuns = new WeakMap<object, ToolWatch>();

/** Tool calls of `tools` now belong to `watch` (until {@link unwatchTools}). */
export function watchTools(tools: readonly object[], watch: ToolWatch): void {
  for (const tool of tools) toolRuns.set(tool, watch);
}

/** The run of `watch` is over: its tools' later calls are not its steps. */
export function unwatchTools(tools: readonly object[], watch: ToolWatch): void {
  for (const tool of tools) if (toolRuns.get(tool) === watch) toolRuns.delete(tool);
}

const isCallable = (tool: unknown): tool is Record<PropertyKey, unknown> => isObject(tool) && typeof tool.callTool === "function";

/**
 * Whether the SDK runs this call as automatic function calling: callable tools in
 * `config.tools`, and AFC not turned off (`automaticFunctionCalling.disable`, or a
 * `maximumRemoteCalls` the SDK refuses), as `shouldDisableAfc` of `@google/genai` decides.
 */
export function usesAfc(params: Record<string, unknown>): boolean {
  const config = isObject(params.config) ? params.config : {};
  if (!Array.isArray(config.tools) || !config.tools.some(isCallable)) return false;
  // Callable tools beside plain function declarations: the SDK refuses the call before any request.
  if (config.tools.some((t) => !isCallable(t) && isObject(t) && Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0)) return false;
  const afc = isObject(config.automaticFunctionCalling) ? config.automaticFunctionCalling : {};
  if (afc.disable) return false;
  const max = afc.maximumRemoteCalls;
  return !(max === 0 || (typeof max === "number" && max && (max < 0 || !Number.isInteger(max))));
}

/**
 * Opens the agent span of an AFC call (a child of the current span) and instruments its callable
 * tools; undefined when tracing is off. Never throws.
 */
export function startAfc(params: Record<string, unknown>, input: Message[]): AfcRun | undefined {
  let span: ManualSpan | undefined;
  try {
    span = openSpan("gemini.automaticFunctionCalling", "agent", {}, input);
    if (!span) return undefined;
    span.setIntegration("Google GenAI");
    const config = isObject(params.config) ? params.config : {};
    const tools = (Array.isArray(config.tools) ? config.tools : []).filter(isCallable);
    const watched = tools.filter(instrumentCallable);
    const state: RunState = { observed: currentObservedSpan(span.context), tools };
    const open = span;
    return {
      span: open,
      tools: watched,
      ctx: open.context.setValue(RUN, state),
      end(output) {
        quietly(() => {
          const names = new Set<string>();
          for (const tool of state.tools) for (const name of declarations.get(tool)?.keys() ?? []) names.add(name);
          if (names.size > 0) open.set({ availableTools: [...names] });
        });
        open.end(output);
      },
    };
  } catch {
    span?.fail(new Error("could not start the automatic function calling span"));
    return undefined;
  }
}

/**
 * Whether the active context is an AFC run's own loop (its agent span the current span): a model
 * request or a tool call made there is one of the run's steps. A call made inside a step (a
 * callable tool that calls the model itself) is not.
 */
export function afcStep(ctx: Context = context.active()): boolean {
  const state = ctx.getValue(RUN) as RunState | undefined;
  return state !== undefined && currentObservedSpan(ctx) === state.observed;
}

/**
 * Instruments a callable tool, once: its `callTool`, when the SDK's AFC loop calls it, opens a
 * tool span per function call it answers; its `tool()` is read for the names it declares (so that
 * a tool is not credited with calls another tool answers: the SDK gives every callable all of a
 * reply's calls). Outside an AFC step both run as they are. A tool whose methods come from its
 * class (the SDK's `mcpToTool`) is hooked on that class, the object itself left as it is; a
 * plain object of the app's has its own two methods replaced in place (its keys kept), and one
 * we cannot patch (frozen) is left alone (false).
 */
function instrumentCallable(tool: Record<PropertyKey, unknown>): boolean {
  try {
    const done = instrumented();
    if (done.has(tool)) return true;
    if (!Object.hasOwn(tool, "callTool")) {
      if (!hookToolClass(tool)) return false;
      done.add(tool);
      return true;
    }
    const callTool = tool.callTool as Fn;
    const declare = tool.tool;
    // Method shorthand: the patched methods keep the SDK interface's names.
    const patched = {
      callTool(this: unknown, ...args: unknown[]) {
        return traceCallTool(tool, () => callTool.apply(this ?? tool, args), args[0]);
      },
      tool(this: unknown, ...args: unknown[]) {
        return declaring(tool, (declare as Fn).apply(this ?? tool, args));
      },
    };
    define(tool, "callTool", patched.callTool);
    if (typeof declare === "function") define(tool, "tool", patched.tool);
    done.add(tool);
    return true;
  } catch {
    // Left as it is.
    return false;
  }
}

/** What a tool's `tool()` returned, its declarations recorded when it resolves. */
function declaring(tool: object, declared: unknown): unknown {
  quietly(() => void Promise.resolve(declared).then((t) => recordDeclarations(tool, t), () => undefined));
  return declared;
}

/** Marks a callable tool class's method hooked here (shared by every copy of evaltrace). */
const TOOL_HOOKED = Symbol.for("evaltrace.google-genai.toolHooked");

/**
 * Hooks `callTool` and `tool` on the class of `tool` (where its prototype chain holds them), once
 * per class: a call on an instrumented tool is traced as above, any other runs as it is. False
 * when the class's `callTool` cannot be hooked.
 */
function hookToolClass(tool: object): boolean {
  const owner = methodHolder(Object.getPrototypeOf(tool), "callTool");
  if (!owner) return false;
  const hooks: Record<string, (self: object, original: Fn, args: unknown[]) => unknown> = {
    callTool: (self, original, args) => traceCallTool(self, () => original.apply(self, args), args[0]),
    tool: (self, original, args) => declaring(self, original.apply(self, args)),
  };
  for (const [name, hook] of Object.entries(hooks)) {
    const at = methodHolder(Object.getPrototypeOf(tool), name);
    if (!at || (at[name] as { [TOOL_HOOKED]?: unknown })[TOOL_HOOKED]) continue;
    replaceMethod(at, name, (original) => {
      const hooked: KitFn = methodLike(original, function (this: unknown, args: unknown[]) {
        return isObject(this) && instrumented().has(this) ? hook(this, original as Fn, args) : original.apply(this, args);
      });
      Object.defineProperty(hooked, TOOL_HOOKED, { value: original });
      return hooked;
    });
  }
  return (owner.callTool as { [TOOL_HOOKED]?: unknown })[TOOL_HOOKED] !== undefined;
}

/** Puts `value` on `target` as its own `key`, enumerable only when the property it replaces was own and enumerable. */
function define(target: object, key: PropertyKey, value: unknown): void {
  const own = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
}

function recordDeclarations(tool: object, declared: unknown): void {
  quietly(() => {
    if (!isObject(declared) || !Array.isArray(declared.functionDeclarations)) return;
    const names: Declared = new Map();
    for (const d of declared.functionDeclarations) {
      if (isObject(d) && typeof d.name === "string") names.set(d.name, typeof d.description === "string" ? d.description : undefined);
    }
    declarations.set(tool, names);
  });
}

type FunctionCall = Record<PropertyKey, unknown>;

/**
 * Runs one `callTool(functionCalls)` of an AFC step: a tool span per call this tool answers (its
 * name, arguments and description; the function response as output, ERRORED when the call throws
 * or the response holds only an `error`, as the Gemini API has tools report one). With one call the
 * tool runs inside its span (what it traces nests under it); with several, beside them.
 */
function traceCallTool<R>(tool: object, call: () => R, calls: unknown): R {
  let spans: { call: FunctionCall; span: ManualSpan }[] = [];
  // A streamed run calls its tools in its own context; a non-streamed run's loop, in the app's.
  const watch = afcStep() ? undefined : toolRuns.get(tool);
  try {
    if (watch || afcStep()) {
      const declared = declarations.get(tool);
      const list = Array.isArray(calls) ? calls.filter(isObject) : [];
      const mine = declared ? list.filter((c) => typeof c.name === "string" && declared.has(c.name)) : list;
      for (const c of mine) {
        const name = typeof c.name === "string" && c.name ? c.name : "tool";
        const description = declared?.get(name);
        const span = openSpan(name, "tool", description === undefined ? {} : { description }, c.args ?? {}, watch?.run.ctx);
        if (span) {
          span.setIntegration("Google GenAI");
          spans.push({ call: c, span });
        }
      }
    }
  } catch {
    for (const s of spans) s.span.fail(new Error("could not trace the tool call"));
    spans = [];
  }
  if (spans.length === 0 && !watch) return call();
  let result: R;
  try {
    result = spans.length === 1 ? context.with(spans[0]!.span.context, call) : call();
  } catch (err) {
    for (const s of spans) s.span.fail(err);
    quietly(() => watch?.settled(err));
    throw err;
  }
  quietly(() => {
    void Promise.resolve(result).then(
      (parts) =>
        quietly(() => {
          endCalls(spans, parts);
          watch?.settled();
        }),
      (err: unknown) => {
        for (const s of spans) s.span.fail(err);
        quietly(() => watch?.settled(err ?? new Error("the tool failed")));
      },
    );
  });
  return result;
}

/** Ends each call's span with its function response: matched by `id`, else by name in order. */
function endCalls(spans: { call: FunctionCall; span: ManualSpan }[], parts: unknown): void {
  const responses = (Array.isArray(parts) ? parts : []).map((p) => (isObject(p) && isObject(p.functionResponse) ? p.functionResponse : undefined)).filter((r) => r !== undefined);
  for (const { call, span } of spans) {
    const at = responses.findIndex((r) => (call.id !== undefined && r.id !== undefined ? r.id === call.id : r.name === call.name));
    if (at < 0) {
      span.end();
      continue;
    }
    const response = responses.splice(at, 1)[0]!.response;
    if (isObject(response) && "error" in response && !("output" in response)) span.fail(toolError(response.error));
    else span.end(response);
  }
}

/** A function response's `error` as an Error (its text: a string, the text of an MCP result, or JSON). */
function toolError(error: unknown): Error {
  let text: string;
  if (typeof error === "string") text = error;
  else if (isObject(error) && Array.isArray(error.content)) text = error.content.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).filter((s) => s !== "").join("\n");
  else text = toText(error ?? null);
  const err = new Error(text || "the tool reported an error");
  err.name = "ToolError";
  return err;
}
