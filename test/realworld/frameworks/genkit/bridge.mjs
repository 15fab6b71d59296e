// The bridge setup of genkit.test.ts, preloaded with `--import` before the unmodified program:
// what a Genkit app does to send its traces elsewhere, Genkit's own `enableTelemetry` (it builds
// the OpenTelemetry NodeSDK, 1.x, that Genkit's spans go to) given our span processor.
import { EvaltraceSpanProcessor } from "evaltrace";
// `genkit` first: loading it installs the Node telemetry provider that enableTelemetry needs.
import "genkit";
import { enableTelemetry } from "genkit/tracing";

await enableTelemetry({ spanProcessors: [new EvaltraceSpanProcessor()] });
