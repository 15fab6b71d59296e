// The bridge setup of test/realworld/frameworks/beeai.test.ts, preloaded with --import: the steps
// of @arizeai/openinference-instrumentation-beeai's examples/instrumentation.ts (same commit as
// program.ts) — a NodeTracerProvider, `new BeeAIInstrumentation().manuallyInstrument(beeaiFramework)`,
// `provider.register()` — with evaltrace's span processor in place of its console and Phoenix
// exporters, and without its console.log and diag logger (the untraced run prints neither).
import { BeeAIInstrumentation } from "@arizeai/openinference-instrumentation-beeai";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import * as beeaiFramework from "beeai-framework";
import { EvaltraceSpanProcessor } from "evaltrace";

const provider = new NodeTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] });

const beeAIInstrumentation = new BeeAIInstrumentation();
beeAIInstrumentation.manuallyInstrument(beeaiFramework);

provider.register();
