// The bridge setup of test/realworld/frameworks/strands.test.ts, preloaded with --import: Strands'
// own telemetry setup, `setupTracer({ provider })` from @strands-agents/sdk/telemetry (the way its
// telemetry docs add your own provider), with a NodeTracerProvider that carries evaltrace's span
// processor.
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { setupTracer } from "@strands-agents/sdk/telemetry";
import { EvaltraceSpanProcessor } from "evaltrace";

setupTracer({ provider: new NodeTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }) });
