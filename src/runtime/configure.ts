import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type EvaltraceOptions, resolveOptions } from "../config/options.js";
import { ownerOf } from "../spans/span-data.js";
import { installExitHooks } from "./exit-hooks.js";
import { registry } from "./registry.js";
import { Runtime } from "./runtime.js";
import { isCapturing } from "./trace-tap.js";

/**
 * Registers an AsyncLocalStorage context manager unless the app already has one: the OTel API
 * refuses a second registration, so an app's own manager is never replaced.
 */
function ensureContextManager(): void {
  const reg = registry();
  if (reg.contextReady) return;
  reg.contextReady = true;
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager.enable())) return;
  manager.disable();
}

/**
 * Sets the SDK's options, for every copy of the package in the process (ESM, CommonJS and every
 * subpath entry share one runtime). Calling it again replaces the options; work already queued
 * is still delivered.
 * @throws TypeError naming an option that is unknown or has a wrong value.
 */
export function configure(options: EvaltraceOptions = {}): void {
  const resolved = resolveOptions(options);
  const reg = registry();
  const previous = reg.current;
  reg.current = new Runtime(resolved);
  ensureContextManager();
  installExitHooks(reg);
  if (previous && !previous.isShutdown) {
    // Its running traces end in it (their spans know their runtime); flush(), deliver(),
    // shutdown() and the exit hooks cover it until it is idle.
    if (!previous.isIdle) reg.retired.push(previous);
    void previous.flush();
  }
  warnIfNoKey(reg.current);
}

/** The runtime a new span belongs to: its parent's, else the current one (undefined: tracing is off). */
export function runtimeFor(parent: object | undefined): Runtime | undefined {
  const owner = parent === undefined ? undefined : (ownerOf(parent) as Runtime | undefined);
  if (owner !== undefined) return owner.acceptsSpans ? owner : undefined;
  return activeRuntime();
}

/**
 * Whether observed spans are the active OTel span: `otelContext: "shared"` (the default), once an
 * `EvaltraceSpanProcessor` exists to see what other instrumentations record inside them. Without
 * one, the app's own telemetry is left exactly as it was.
 */
export function sharesOtelContext(): boolean {
  const reg = registry();
  return reg.bridged && reg.current?.options.otelContext !== "separate";
}

function warnIfNoKey(rt: Runtime): void {
  const reg = registry();
  // A capture of evaltrace/testing records without a key: nothing to warn of while it runs.
  if (!rt.options.apiKey && rt.options.enabled && !reg.warnedNoKey && !isCapturing()) {
    reg.warnedNoKey = true;
    rt.logger.warn("no API key (set EVALTRACE_API_KEY or configure({ apiKey })): tracing is off, the app runs untouched");
  }
}

/**
 * The runtime to record with, or undefined when tracing is off (disabled, no key, shut down).
 * Made from the environment on first use when `configure()` was never called.
 */
export function activeRuntime(): Runtime | undefined {
  const rt = ensureRuntime();
  return rt?.isRecording ? rt : undefined;
}

/** The current runtime whatever its state, made from the environment if there is none yet. */
export function ensureRuntime(): Runtime | undefined {
  const reg = registry();
  if (!reg.current) {
    try {
      reg.current = new Runtime(resolveOptions({}));
      ensureContextManager();
      installExitHooks(reg);
      warnIfNoKey(reg.current);
    } catch {
      return undefined;
    }
  }
  return reg.current;
}

/** The current runtime whatever its state, without creating one. */
export function currentRuntime(): Runtime | undefined {
  return registry().current;
}
