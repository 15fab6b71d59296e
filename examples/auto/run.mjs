// Zero-code, offline: starts the emulator and the fake model servers, then runs app.mjs (which
// never imports evaltrace) under `node --import evaltrace/auto`, and prints what was stored.
//   npx tsup --silent && node examples/auto/run.mjs
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startDevServer } from "@evaltrace/dev";
import { startFakeAnthropic, startFakeGoogleGenAI, startFakeOpenAI } from "@evaltrace/dev/fakes";
import { printTraces } from "../print-traces.mjs";

const dev = await startDevServer({ port: 0 });
const [openai, anthropic, google] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGoogleGenAI()]);
const app = fileURLToPath(new URL("./app.mjs", import.meta.url));
const env = { ...process.env, EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_OPENAI: openai.url, FAKE_ANTHROPIC: anthropic.url, FAKE_GOOGLE: google.url };
const code = await new Promise((resolve) => spawn(process.execPath, ["--import", "evaltrace/auto", app], { env, stdio: "inherit" }).on("close", resolve));
printTraces(dev);
await Promise.all([openai.close(), anthropic.close(), google.close()]);
await dev.close();
process.exitCode = code ?? 1;
