import * as nodeModule from "node:module";
import { processEnv } from "../config/options.js";
import { currentRuntime, ensureRuntime } from "../runtime/configure.js";
import { reportInternalError } from "../util/internal-errors.js";
import { watchBundledSdks } from "./bundled-sdk.js";
import { type HookDependencies, hookDependencies, reportMissingHooks } from "./dependencies.js";
import { createInstrumentation, type LibraryInstrumentation } from "./instrumentation.js";
import { HOOK_SHAPES } from "./hook-shapes.js";
import { loadHookCode } from "./hook-code.js";
import { useImportInTheMiddle } from "./module-hooks.js";
import { DISABLE_ENV, disabledByEnvironment } from "./disabled.js";
import { isLibraryName, LIBRARIES, type LibraryName } from "./libraries.js";
import { autoState } from "./state.js";
import { esmIncludeOf, packagesOf } from "./claims.js";
import { registerSyncHooks } from "./sync-esm-hooks.js";

/** Which libraries {@link instrument} turns on (`true`) or off (`false`); a library left out is on. */
export type InstrumentOptions = { [Library in LibraryName]?: boolean };

/** Each library's instrumentation, made on first use and kept for the process (several entries share it). */
const instrumentations = new Map<LibraryName, LibraryInstrumentation>();

/**
 * Registers the ESM loader hooks once, so that ESM imports are hooked too. Where Node runs
 * synchronous module hooks correctly (`module.registerHooks`: Node >= 22.22.3, >= 24.11.1, as
 * import-in-the-middle's `supportsSyncHooks` says), they run on the app's thread and a hooked
 * module hands its namespace over itself (`sync-esm-hooks.ts`, `esm-handoff.ts`); elsewhere
 * import-in-the-middle's asynchronous hooks of `module.register`, with its `include` list (only
 * the modules of `libraries` are wrapped), run on a thread of their own, and every module the app
 * imports crosses to it and back (start-up: see bench/startup.mjs). Under `evaltrace/auto` the
 * thread's hook is registered at start (`on-first-import.ts`), and this finds it done.
 */
function registerEsmHook(dependencies: HookDependencies, libraries: readonly LibraryName[]): void {
  const state = autoState();
  // Registered at start on the hooks thread (`on-first-import.ts`, Node 20): its wrapper modules hand ES modules over.
  if (state.esmHookRegistered) {
    if (!state.resolveEsm) useImportInTheMiddle();
    return;
  }
  const include = esmIncludeOf(libraries);
  try {
    if (registerSyncHooks(dependencies, include, packagesOf(libraries))) {
      state.esmHookRegistered = true;
      return;
    }
    if (typeof nodeModule.register !== "function") return;
    state.esmHookRegistered = true;
    useImportInTheMiddle();
    nodeModule.register("import-in-the-middle/hook.mjs", dependencies.parentUrl, { data: { include } });
  } catch {
    // No loader hooks here (a runtime without them): CommonJS is still hooked.
  }
}

function fail(message: string): never {
  throw new TypeError(`evaltrace: ${message}`);
}

/**
 * Instruments the supported libraries the app loads, with no change to its code: `openai`,
 * `@anthropic-ai/sdk`, `@google/genai` (each client on its first call, as `wrapOpenAI`,
 * `wrapAnthropic` and `wrapGoogleGenAI` would), `@aws-sdk/client-bedrock-runtime` (each client on
 * its first `send`, as `wrapBedrock` would), `@openai/agents` (an `EvaltraceTracingProcessor`
 * added to its trace provider), `@langchain/core` (an `EvaltraceCallbackHandler` on every run),
 * LlamaIndex.TS (`@llamaindex/core`'s events and `@llamaindex/workflow`'s agents, as
 * `instrumentLlamaIndex` records them),
 * the MCP SDK (clients' tool calls and servers' tool handlers), the AI SDK (`ai`, its
 * OpenTelemetry telemetry turned on where a call leaves it unset) and the Claude Agent SDK
 * (`@anthropic-ai/claude-agent-sdk`, each `query()` as `wrapQuery` would). Modules loaded after the call
 * are hooked through the standard OpenTelemetry require and import hooks; for ESM apps, call it
 * before the libraries are imported (best: `node --import evaltrace/auto`).
 *
 * Calling it again changes which libraries are on; a library turned off stops recording at
 * once. A client the app wrapped itself (`wrapOpenAI`, ...) is never wrapped twice.
 *
 * @param options - Libraries to turn off (`{ langchain: false }`); every other one is on.
 * @returns The libraries now on.
 * @throws TypeError for a name that is not a supported library or a value that is not a boolean.
 *
 * @example
 * import { instrument } from "evaltrace/instrument";
 * instrument({ langchain: false });
 * const { default: OpenAI } = await import("openai");
 */
export function instrument(options: InstrumentOptions = {}): LibraryName[] {
  if (typeof options !== "object" || options === null || Array.isArray(options)) fail("instrument() takes an object such as { openai: true, langchain: false }");
  for (const [key, value] of Object.entries(options)) {
    if (!isLibraryName(key)) fail(`instrument(): unknown library \`${key}\` (known: ${LIBRARIES.join(", ")})`);
    if (typeof value !== "boolean" && value !== undefined) fail(`instrument(): \`${key}\` must be true or false`);
  }
  autoState().calledInstrument = true;
  return apply(LIBRARIES.filter((name) => options[name] !== false));
}

/** Turns on exactly `wanted`, making and enabling each library's hooks the first time. */
function apply(wanted: readonly LibraryName[]): LibraryName[] {
  const state = autoState();
  const dependencies = hookDependencies();
  if (!dependencies) {
    if (wanted.length > 0) reportMissingHooks(currentRuntime()?.logger);
    return [];
  }
  for (const name of LIBRARIES) {
    const on = wanted.includes(name);
    if (on) {
      state.enabled.add(name);
      if (!state.created.has(name)) {
        state.created.add(name);
        // The targets now, from data; the hook code at the first module they match.
        const made = createInstrumentation(name, HOOK_SHAPES[name], () => loadHookCode(name));
        instrumentations.set(name, made);
        made.enable();
      }
    } else {
      state.enabled.delete(name);
    }
  }
  // After the instrumentations are made: the files of the hook packages they load would otherwise
  // each go through the loader hooks.
  if (wanted.length > 0) {
    registerEsmHook(dependencies, wanted);
    watchBundledSdks();
  }
  return LIBRARIES.filter((name) => state.enabled.has(name));
}

/**
 * What `evaltrace/auto` does (at the app's first import of a claimed package: `on-first-import.ts`):
 * the SDK configured from the environment, and every library not turned off by
 * `EVALTRACE_DISABLE_INSTRUMENTATIONS` instrumented, of those in `installed` (default: all). Never throws.
 */
export function instrumentFromEnvironment(installed: readonly LibraryName[] = LIBRARIES): void {
  try {
    const runtime = ensureRuntime();
    const { disabled, unknown } = disabledByEnvironment(processEnv()[DISABLE_ENV]);
    if (unknown.length > 0) {
      runtime?.logger.warn(`${DISABLE_ENV} names unknown libraries (${unknown.join(", ")}); known: ${LIBRARIES.join(", ")}`);
    }
    // The app's own instrument() call, made before its first import of a library, has the last word.
    if (!autoState().calledInstrument) apply(LIBRARIES.filter((name) => !disabled.includes(name) && installed.includes(name)));
  } catch (error) {
    // Zero-code never stops the app from starting; counted and logged.
    reportInternalError("zero-code setup (evaltrace/auto)", error, currentRuntime()?.logger);
  }
}
