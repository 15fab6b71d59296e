// The app's instrumentation file, as docs/nextjs.md gives it. Next.js compiles it for the node
// and the edge runtime, so both static imports below must load on each (issue 49).
import { registerOTel } from "@vercel/otel";
import { configure, EvaltraceSpanProcessor } from "evaltrace";

export function register() {
  // Reads EVALTRACE_API_KEY and EVALTRACE_BASE_URL. On the edge runtime there is no process to
  // hook: configure() installs no exit hooks there and throws nothing.
  configure({ registerExitHooks: true });
  // The app's own OpenTelemetry (Next's spans, other libraries'), the @vercel/otel way: evaltrace
  // takes the GenAI spans in as the bridge. APP_OTEL=0 starts the app without it.
  if (process.env.APP_OTEL !== "0") {
    registerOTel({ serviceName: "evaltrace-next-test", spanProcessors: ["auto", new EvaltraceSpanProcessor()] });
  }
}
