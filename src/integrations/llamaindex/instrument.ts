import { processWide } from "../../process-wide.js";
import { quietly } from "../kit/model-call.js";
import { replaceMethod } from "../kit/prototype-method.js";
import { instrumentAgentWorkflow } from "./agents.js";
import { watchLlm } from "./llm-calls.js";
import { field } from "./messages.js";
import { LlamaIndexRecorder, type LlamaIndexRecordOptions } from "./recorder.js";
import type { AgentWorkflowClass, CallbackManagerLike, LlamaIndexSettings } from "./types.js";

/** Options of {@link instrumentLlamaIndex}. */
export interface InstrumentLlamaIndexOptions extends LlamaIndexRecordOptions {
  /**
   * `AgentWorkflow` of `@llamaindex/workflow`: each `run()` of a workflow agent (`agent()`,
   * `multiAgent()`) becomes an agent span with its model and tool calls under it. Without it,
   * those calls are still recorded, under the span current where the agent runs.
   */
  AgentWorkflow?: AgentWorkflowClass;
}

/** What is installed on one `Settings` object (shared by every copy of evaltrace through the symbol). */
interface Installed {
  recorder: LlamaIndexRecorder;
  gate: { on: () => boolean };
  managers: Set<CallbackManagerLike>;
  active: boolean;
  undo: () => void;
}

/**
 * What evaltrace keeps about LlamaIndex's objects, beside them (their own properties stay as
 * LlamaIndex made them), shared by every copy of evaltrace: what is installed on each `Settings`;
 * the callback managers that have the listeners (the `Settings` of llamaindex and of
 * `@llamaindex/core` share one); the `Settings` classes whose accessors are followed.
 */
const marks = processWide("llamaindex.marks", () => ({ installed: new WeakMap<object, Installed>(), listened: new WeakMap<object, Installed>(), followed: new WeakSet<object>() }));

function isManager(v: unknown): v is CallbackManagerLike {
  return typeof field(v, "on") === "function" && typeof field(v, "off") === "function";
}

function attachTo(installed: Installed, manager: unknown): void {
  if (!installed.active || !isManager(manager) || installed.managers.has(manager)) return;
  const owner = marks.listened.get(manager);
  if (owner?.active) {
    // Another `Settings` of the same copy (llamaindex's and @llamaindex/core's share a manager),
    // or zero-code before the app's own call: the later options apply to what it records.
    if (owner !== installed) owner.recorder.options = installed.recorder.options;
    return;
  }
  marks.listened.set(manager, installed);
  installed.managers.add(manager);
  for (const [name, listener] of Object.entries(installed.recorder.listeners)) manager.on(name, listener);
}

/** An accessor of `Settings`, its own or its class's (llamaindex's `Settings` is a class instance). */
function accessor(settings: object, name: string): PropertyDescriptor | undefined {
  for (let o: object | null = settings, hops = 0; o && hops < 10; o = Object.getPrototypeOf(o) as object | null, hops++) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return d.configurable && d.get && d.set ? d : undefined;
  }
  return undefined;
}

/** The object of `settings`' prototype chain that defines `name`. */
function ownerOf(settings: object, name: string): object | undefined {
  for (let o: object | null = settings, hops = 0; o && hops < 10; o = Object.getPrototypeOf(o) as object | null, hops++) {
    if (Object.getOwnPropertyDescriptor(o, name)) return o;
  }
  return undefined;
}

/**
 * Follows the `Settings` object: a callback manager set later (`Settings.callbackManager = ...`,
 * `Settings.withCallbackManager`) gets the listeners too, an LLM set later is watched for errors.
 * Through its class (llamaindex's `Settings` is a class instance), once per class, so that the
 * object keeps its own properties. `@llamaindex/core`'s `Settings` is a plain object whose
 * accessors are its own: they are redefined with the same attributes and getter (its own
 * property names and `util.inspect` read as before).
 */
function follow(settings: object): void {
  const installedOf = (self: unknown): Installed | undefined => (self !== null && typeof self === "object" ? marks.installed.get(self) : undefined);
  const manager = accessor(settings, "callbackManager");
  const managerOwner = ownerOf(settings, "callbackManager");
  if (manager?.get && manager.set && managerOwner && !marks.followed.has(managerOwner)) {
    const { get, set } = manager;
    Object.defineProperty(managerOwner, "callbackManager", {
      configurable: true,
      enumerable: manager.enumerable,
      get,
      set(value: unknown) {
        set.call(this, value);
        const installed = installedOf(this);
        if (installed) quietly(() => attachTo(installed, value));
      },
    });
  }
  const llm = accessor(settings, "llm");
  const llmOwner = ownerOf(settings, "llm");
  if (llm?.get && llm.set && llmOwner && !marks.followed.has(llmOwner)) {
    const { get, set } = llm;
    Object.defineProperty(llmOwner, "llm", {
      configurable: true,
      enumerable: llm.enumerable,
      get,
      set(value: unknown) {
        set.call(this, value);
        if (installedOf(this)?.active) watchLlm(value);
      },
    });
  }
  const withOwner = ownerOf(settings, "withCallbackManager");
  if (withOwner && !marks.followed.has(withOwner)) {
    replaceMethod(withOwner, "withCallbackManager", (original) => {
      // A method, as LlamaIndex's is (no `prototype` of its own).
      const replaced = {
        withCallbackManager(this: unknown, ...args: unknown[]) {
          const installed = installedOf(this);
          if (installed) quietly(() => attachTo(installed, args[0]));
          return original.apply(this, args);
        },
      };
      return replaced.withCallbackManager;
    });
  }
  for (const owner of [managerOwner, llmOwner, withOwner]) if (owner) marks.followed.add(owner);
}

/**
 * Attaches the recorder to a `Settings` object, once per object: a second call (from any copy of
 * evaltrace) replaces the options and the gate, and returns the same undo. `on` says whether to
 * record (zero-code: while `llamaindex` is instrumented). Never throws.
 */
export function attachLlamaIndex(settings: LlamaIndexSettings, options: InstrumentLlamaIndexOptions, on: () => boolean): () => void {
  instrumentAgentWorkflow(options.AgentWorkflow, on);
  const { AgentWorkflow: _, ...recordOptions } = options;
  const existing = marks.installed.get(settings);
  if (existing?.active) {
    existing.recorder.options = recordOptions;
    existing.gate.on = on;
    quietly(() => attachTo(existing, field(settings, "callbackManager")));
    return existing.undo;
  }
  const gate = { on };
  const installed: Installed = {
    // The embed model of these Settings names a retriever's embedder when the retriever does not.
    recorder: new LlamaIndexRecorder(recordOptions, () => installed.active && gate.on(), () => field(settings, "embedModel")),
    gate,
    managers: new Set(),
    active: true,
    undo: () => {
      if (!installed.active) return;
      installed.active = false;
      quietly(() => {
        for (const manager of installed.managers) {
          for (const [name, listener] of Object.entries(installed.recorder.listeners)) manager.off(name, listener);
          if (marks.listened.get(manager) === installed) marks.listened.delete(manager);
        }
        installed.managers.clear();
        if (marks.installed.get(settings) === installed) marks.installed.delete(settings);
      });
    },
  };
  quietly(() => {
    marks.installed.set(settings, installed);
    attachTo(installed, field(settings, "callbackManager"));
    watchLlm(field(settings, "llm"));
    follow(settings);
  });
  return installed.undo;
}

/**
 * Records LlamaIndex.TS as spans, through its own instrumentation events: the listeners join
 * the `CallbackManager` of the `Settings` you pass (and any callback manager set on it later).
 * Model calls become llm spans (model, messages, reply, tool calls with their ids, token usage
 * as the reply reports it, and the texts retrieved before them in the same query or chat as
 * `retrievalContext`), retrievals retriever spans (query, nodes, embedder), tool calls tool
 * spans; with `AgentWorkflow` given, each workflow agent run is an agent span around them. Spans
 * join the current `observe()` span. A failing model call ends its span as an error.
 *
 * Idempotent: a second call for the same `Settings` changes the options and returns the same
 * undo; the returned function stops recording. With `evaltrace/auto`, LlamaIndex is recorded
 * already; calling this then only sets the options.
 *
 * @param settings - `Settings` from `llamaindex` (or `@llamaindex/core/global`). When an
 *   LLM package brings its own copy of `@llamaindex/core` (llamaindex 0.11 with
 *   `@llamaindex/openai` 0.4), call it for that copy's `Settings` too.
 * @throws TypeError when `settings` is not LlamaIndex's `Settings` (no `callbackManager`).
 *
 * @example
 * import { Settings } from "llamaindex";
 * import { AgentWorkflow } from "@llamaindex/workflow";
 * import { instrumentLlamaIndex } from "evaltrace/llamaindex";
 * instrumentLlamaIndex(Settings, { AgentWorkflow });
 */
export function instrumentLlamaIndex(settings: LlamaIndexSettings, options: InstrumentLlamaIndexOptions = {}): () => void {
  if (settings === null || typeof settings !== "object" || !isManager(field(settings, "callbackManager"))) {
    throw new TypeError("evaltrace: instrumentLlamaIndex() takes LlamaIndex's Settings (import { Settings } from \"llamaindex\"), an object with a callbackManager");
  }
  if (options === null || typeof options !== "object") throw new TypeError("evaltrace: instrumentLlamaIndex() options must be an object");
  return attachLlamaIndex(settings, options, () => true);
}
