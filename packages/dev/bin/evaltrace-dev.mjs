#!/usr/bin/env node
// `evaltrace-dev` (`npx @evaltrace/dev`): the emulator, as `evaltrace dev` runs it.
import { dev } from "../dist/cli.js";

try {
  process.exitCode = await dev(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`evaltrace dev: ${process.env.EVALTRACE_DEBUG ? err?.stack : (err?.message ?? String(err))}\n`);
  if (!process.env.EVALTRACE_DEBUG) process.stderr.write("evaltrace dev: set EVALTRACE_DEBUG=1 for the stack trace\n");
  process.exitCode = 1;
}
