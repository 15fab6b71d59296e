import { type AgentsSpan, type AgentsTrace, EvaltraceTracingProcessor } from "../../integrations/openai-agents.js";
import { hookClassMethod } from "../../integrations/kit/class-method.js";
import { processWide } from "../../process-wide.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Provider = { registerProcessor?: (p: unknown) => void; setProcessors?: (p: unknown[]) => void };

/** The trace providers that have the zero-code processor (several copies of the SDK may share one), beside them: the provider keeps its own properties. */
const autoOf = processWide("auto.agentsProcessors", () => new WeakMap<object, AutoProcessor>());

/** The app registered an EvaltraceTracingProcessor of its own (any copy of ours): it records, not this one. */
const isAppProcessor = (p: unknown) => p instanceof Object && !(p instanceof AutoProcessor) && (p as object).constructor?.name === "EvaltraceTracingProcessor";

/**
 * The Agents SDK trace processor zero-code registers: an `EvaltraceTracingProcessor` that goes
 * quiet while instrumentation of `openai-agents` is off, or once the app registers its own
 * `EvaltraceTracingProcessor` (with its options), so that no run is recorded twice.
 */
class AutoProcessor {
  readonly inner = new EvaltraceTracingProcessor();
  appHasOwn = false;

  private get on(): boolean {
    return !this.appHasOwn && isOn("openai-agents");
  }

  async onTraceStart(trace: AgentsTrace): Promise<void> {
    if (this.on) await this.inner.onTraceStart(trace);
  }

  async onTraceEnd(trace: AgentsTrace): Promise<void> {
    await this.inner.onTraceEnd(trace);
  }

  async onSpanStart(span: AgentsSpan): Promise<void> {
    if (this.on) await this.inner.onSpanStart(span);
  }

  async onSpanEnd(span: AgentsSpan): Promise<void> {
    await this.inner.onSpanEnd(span);
  }

  async shutdown(): Promise<void> {
    await this.inner.shutdown();
  }

  async forceFlush(): Promise<void> {
    await this.inner.forceFlush();
  }
}

/** Watches the provider's registrations for the app's own EvaltraceTracingProcessor, on its class (once). */
function watch(provider: object): void {
  for (const method of ["registerProcessor", "setProcessors"] as const) {
    hookClassMethod(provider, method, (original) =>
      function (this: unknown, arg: unknown) {
        const auto = this instanceof Object ? autoOf.get(this) : undefined;
        if (!auto) return original.call(this, arg);
        const added = Array.isArray(arg) ? arg : [arg];
        if (added.some(isAppProcessor)) auto.appHasOwn = true;
        // setTraceProcessors() replaces the list (the SDK itself does so when it loads its
        // exporter): the zero-code processor stays in it, unless the app brings its own.
        if (method === "setProcessors" && Array.isArray(arg) && !auto.appHasOwn && !arg.includes(auto)) return original.call(this, [...arg, auto]);
        return original.call(this, arg);
      },
    );
  }
}

/**
 * `@openai/agents` (its core, `@openai/agents-core`): an `EvaltraceTracingProcessor` is added
 * to the global trace provider, as the SDK documents (`addTraceProcessor`), beside the SDK's
 * own exporter, and kept there when the list is replaced (`setTraceProcessors`, which the SDK
 * calls itself when it loads); runs, agents, model calls, tools and handoffs become spans.
 */
export const openaiAgentsHook: LibraryHook = {
  library: "openai-agents",
  packageName: "@openai/agents-core",
  versions: [">=0.1"],
  onLoad(exports) {
    const getProvider = exports.getGlobalTraceProvider as (() => Provider) | undefined;
    if (typeof getProvider !== "function") return;
    const provider = getProvider();
    if (!provider || autoOf.has(provider) || typeof provider.registerProcessor !== "function") return;
    const auto = new AutoProcessor();
    provider.registerProcessor(auto);
    autoOf.set(provider, auto);
    watch(provider);
  },
};
