// Zero-code's set-up alone (issue 46): `node bench/startup/setup-cost.cjs <build dir>` requires
// the build's auto-setup.cjs, then runs instrumentFromEnvironment for the ten libraries, and
// prints the CPU ms of each step (this process, every thread). Run it a few times; the first
// step includes @opentelemetry/api's CommonJS files, which an app importing the AI SDK loads anyway.
const { resolve } = require("node:path");
const dir = resolve(process.argv[2] ?? "packages/evaltrace/dist");
process.env.EVALTRACE_API_KEY ??= "svc_local_proj_bench";
process.env.EVALTRACE_BASE_URL ??= "http://127.0.0.1:9";
const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const start = cpu();
const setup = require(`${dir}/auto-setup.cjs`);
const loaded = cpu();
setup.instrumentFromEnvironment(["openai", "anthropic", "google-genai", "openai-agents", "langchain", "mcp", "ai", "bedrock", "claude-agent-sdk", "llamaindex"]);
console.log(JSON.stringify({ loadMs: +(loaded - start).toFixed(1), setupMs: +(cpu() - loaded).toFixed(1) }));
