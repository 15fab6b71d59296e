import { type Context, createContextKey } from "@opentelemetry/api";

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

/** `ctx` carrying `probe`: a span started in it is reported to the probe and not recorded. */
export function withProcessorProbe(ctx: Context, probe: ProcessorProbe): Context {
  return ctx.setValue(PROBE, probe);
}

/** The probe a context carries, if any. */
export function processorProbeOf(ctx: Context): ProcessorProbe | undefined {
  const probe = ctx.getValue(PROBE) as ProcessorProbe | undefined;
  return probe && typeof probe.seen === "function" ? probe : undefined;
}
