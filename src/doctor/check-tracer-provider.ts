import { context, ProxyTracerProvider, trace, type TracerProvider } from "@opentelemetry/api";
import { withProcessorProbe } from "./processor-probe.js";
import { registry } from "../runtime/registry.js";
import type { Check } from "./context.js";

/** The name of the one span the check starts on the app's provider (its other processors see it too). */
export const PROBE_SPAN_NAME = "evaltrace.doctor.probe";

function nameOf(provider: TracerProvider): string {
  return (provider as { constructor?: { name?: string } }).constructor?.name || "a tracer provider";
}

/**
 * The app's global OpenTelemetry tracer provider: none (fine: only spans of OTel instrumentations
 * need one), or one that carries an `EvaltraceSpanProcessor` — told by starting one span on it in
 * a context that asks our processor to answer (it reports the span and does not record it).
 */
export const checkTracerProvider: Check = async (ctx) => {
  const check = "tracer-provider" as const;
  if (!ctx.inApp) {
    return [{ check, ok: true, severity: "info", skipped: true, message: "not checked from the command line: the tracer provider lives in the app's process (call doctor() from evaltrace/doctor in the app)" }];
  }
  const global = trace.getTracerProvider();
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  const name = nameOf(delegate);
  if (name === "NoopTracerProvider") {
    const bridged = registry().bridged ? " (an EvaltraceSpanProcessor exists, on a provider that is not the global one)" : "";
    return [
      {
        check,
        ok: true,
        severity: "info",
        message: `no global OpenTelemetry tracer provider${bridged}: observe() and the integrations send directly; one is needed only for spans of OpenTelemetry instrumentations`,
      },
    ];
  }
  let seen = false;
  try {
    const probeContext = withProcessorProbe(context.active(), { seen: () => (seen = true) });
    delegate.getTracer("evaltrace-doctor").startSpan(PROBE_SPAN_NAME, {}, probeContext).end();
  } catch (error) {
    return [{ check, ok: false, severity: "warning", message: `the global tracer provider (${name}) failed to start a span: ${(error as Error).message}`, fix: "check the app's OpenTelemetry setup" }];
  }
  if (seen) {
    return [{ check, ok: true, severity: "info", message: `the global tracer provider (${name}) carries EvaltraceSpanProcessor: spans of OpenTelemetry instrumentations reach evaltrace` }];
  }
  return [
    {
      check,
      ok: false,
      severity: "warning",
      message: `the global tracer provider (${name}) is not ours and has no EvaltraceSpanProcessor: LLM spans recorded on it (OpenInference, OpenLLMetry, the AI SDK's telemetry) do not reach evaltrace`,
      fix: "add one to it: new NodeTracerProvider({ spanProcessors: [yourExporterProcessor, new EvaltraceSpanProcessor()] }) (or NodeSDK's spanProcessors)",
    },
  ];
};
