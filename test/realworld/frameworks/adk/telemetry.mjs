// The bridge setup of test/realworld/frameworks/adk.test.ts, preloaded with --import: ADK's own
// telemetry setup (`maybeSetOtelProviders`, exported by @google/adk: it builds a NodeTracerProvider
// with the span processors given and registers it globally) with evaltrace's span processor, the
// way an app adds a processor to ADK's telemetry.
import { maybeSetOtelProviders } from "@google/adk";
import { EvaltraceSpanProcessor } from "evaltrace";

maybeSetOtelProviders([{ spanProcessors: [new EvaltraceSpanProcessor()] }]);
