// The bridge setup of voltagent.test.ts, preloaded with `--import` before the unmodified program:
// what VoltAgent's observability guides (website/docs/observability/langfuse.md) tell an app to do
// to send its spans elsewhere, a VoltAgentObservability with our span processor in its
// `spanProcessors`, made the observability of every agent. The guides hand it to
// `new VoltAgent({ agents, observability })`, which does this with it (`setGlobalObservability`)
// and more that a program without a VoltAgent server does not have: its own SIGTERM handler,
// which logs to stdout and ends with process.exit(0). The registry call alone is taken here, so
// that the program's output and end are its own.
import { AgentRegistry, VoltAgentObservability } from "@voltagent/core";
import { EvaltraceSpanProcessor } from "evaltrace";

AgentRegistry.getInstance().setGlobalObservability(new VoltAgentObservability({ spanProcessors: [new EvaltraceSpanProcessor()] }));
