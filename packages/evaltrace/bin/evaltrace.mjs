#!/usr/bin/env node
// The CLI. An error nobody foresaw is one line too (EVALTRACE_DEBUG=1 prints its stack).
import { main } from "../dist/cli.js";

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`evaltrace: ${process.env.EVALTRACE_DEBUG ? err?.stack : (err?.message ?? String(err))}\n`);
  if (!process.env.EVALTRACE_DEBUG) process.stderr.write("evaltrace: set EVALTRACE_DEBUG=1 for the stack trace\n");
  process.exitCode = 1;
}
