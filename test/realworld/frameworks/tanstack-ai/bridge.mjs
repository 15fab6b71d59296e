// The bridge setup of tanstack-ai.test.ts, preloaded with `--import` before the program: the
// OpenTelemetry setup the otel guide assumes ("Wire up your OTel SDK however you already do"),
// a NodeTracerProvider registered globally (the tracer `trace.getTracer('my-app')` of the
// program comes from it), with our span processor.
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { EvaltraceSpanProcessor } from "evaltrace";

new NodeTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }).register();
