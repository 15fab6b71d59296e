import type { Context, Span } from "@opentelemetry/api";
import { currentRuntime } from "../runtime/configure.js";
import { reportInternalError } from "../util/internal-errors.js";

/**
 * Something that rides the bridge's `onStart` beside recording, wired by the room that needs it
 * (the doctor's probe of the app's tracer provider, the AI SDK's watch of a call's spans): the
 * span processor runs the list and knows none of them.
 */
export interface BridgeStartHook {
  /**
   * Asked first, of every span that starts on a provider carrying the processor: true when the
   * span is the hook's alone (reported to it, never recorded).
   */
  claims?(span: Span, parentContext: Context): boolean;
  /** Told of each span the processor tracks, once it joined its trace. */
  tracked?(span: Span, parentContext: Context): void;
}

/** The hooks, by name (each copy of the package wiring its own is still one), and the lists the processor runs. */
interface Hooks {
  byName: Map<string, BridgeStartHook>;
  claims: BridgeStartHook[];
  tracked: BridgeStartHook[];
}

// One list per process, whatever the version: the processor of one copy of the package (ESM,
// CommonJS, another version) runs the hooks another copy wired, as the context keys of the probe
// and the watch were shared before. Its shape must stay as it is.
const HOOKS = Symbol.for("evaltrace.bridgeStartHooks");

let found: Hooks | undefined;

function hooks(): Hooks {
  if (found !== undefined) return found;
  const global = globalThis as { [HOOKS]?: Hooks };
  let h = global[HOOKS];
  if (h === undefined) {
    h = { byName: new Map(), claims: [], tracked: [] };
    Object.defineProperty(global, HOOKS, { value: h, enumerable: false, configurable: true, writable: false });
  }
  found = h;
  return h;
}

/** Wires a hook under `name` (again: replaced). */
export function wireBridgeStartHook(name: string, hook: BridgeStartHook): void {
  const h = hooks();
  h.byName.set(name, hook);
  const all = [...h.byName.values()];
  h.claims = all.filter((x) => typeof x.claims === "function");
  h.tracked = all.filter((x) => typeof x.tracked === "function");
}

/** Whether a hook claims the span (then it is not recorded). Never throws. */
export function claimedByHook(span: Span, parentContext: Context): boolean {
  const list = hooks().claims;
  for (let i = 0; i < list.length; i++) {
    try {
      if (list[i]!.claims!(span, parentContext)) return true;
    } catch (error) {
      // A hook's failure never reaches the app's tracing; counted and logged.
      reportInternalError("a bridge start hook (claims)", error, currentRuntime()?.logger);
    }
  }
  return false;
}

/** Tells the hooks of a span the processor tracks. Never throws. */
export function tellHooksTracked(span: Span, parentContext: Context): void {
  const list = hooks().tracked;
  for (let i = 0; i < list.length; i++) {
    try {
      list[i]!.tracked!(span, parentContext);
    } catch (error) {
      // A hook's failure never reaches the app's tracing; counted and logged.
      reportInternalError("a bridge start hook (tracked)", error, currentRuntime()?.logger);
    }
  }
}
