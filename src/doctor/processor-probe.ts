import { type Context, createContextKey } from "@opentelemetry/api";
import { wireBridgeStartHook } from "../bridge/start-hooks.js";

/**
 * Told by an `EvaltraceSpanProcessor` that a span started in a context carrying it: how
 * `evaltrace doctor` learns whether the app's tracer provider carries our processor. A probed
 * span is only reported, never recorded.
 */
export interface ProcessorProbe {
  seen(): void;
}

// Symbol.for underneath: the ESM and CommonJS copies of the package share the key.
const PROBE = createContextKey("evaltrace.processorProbe");

/** The probe a context carries, if any. */
function processorProbeOf(ctx: Context): ProcessorProbe | undefined {
  const probe = ctx.getValue(PROBE) as ProcessorProbe | undefined;
  return probe && typeof probe.seen === "function" ? probe : undefined;
}

/**
 * `ctx` carrying `probe`: a span started in it is reported to the probe and not recorded (the
 * bridge's start hook that does so is wired here, on first use).
 */
export function withProcessorProbe(ctx: Context, probe: ProcessorProbe): Context {
  wireBridgeStartHook("doctor.processorProbe", {
    claims(_span, parentContext) {
      const found = processorProbeOf(parentContext);
      if (!found) return false;
      found.seen();
      return true;
    },
  });
  return ctx.setValue(PROBE, probe);
}
