import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/config/options.js";
import { ENV_VARS } from "../../src/config/env-vars.js";
import type { Logger } from "../../src/index.js";
import { startDevServer } from "../../src/devserver/index.js";
import { formats, runChild } from "../helpers/child.js";

/** A logger that keeps its warnings. */
function keeping(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
}

/** A value each variable takes, and where the resolved options show it. */
const cases = [
  { option: "apiKey", value: "key-1234", read: (o: ReturnType<typeof resolveOptions>) => o.apiKey, expected: "key-1234" },
  { option: "baseUrl", value: "http://127.0.0.1:9/", read: (o: ReturnType<typeof resolveOptions>) => o.baseUrl, expected: "http://127.0.0.1:9" },
  { option: "enabled", value: "false", read: (o: ReturnType<typeof resolveOptions>) => o.enabled, expected: false },
  { option: "sampleRate", value: "0.25", read: (o: ReturnType<typeof resolveOptions>) => o.sampleRate, expected: 0.25 },
  { option: "environment", value: "staging", read: (o: ReturnType<typeof resolveOptions>) => o.environment, expected: "staging" },
] as const;

describe("environment variables: the EVALTRACE_ names, and the deprecated SERVICE_ names still read", () => {
  it("the table names five variables, each EVALTRACE_ with a SERVICE_ name deprecated", () => {
    expect(Object.values(ENV_VARS).map((v) => [v.name, v.deprecated])).toEqual([
      ["EVALTRACE_API_KEY", "SERVICE_API_KEY"],
      ["EVALTRACE_BASE_URL", "SERVICE_BASE_URL"],
      ["EVALTRACE_TRACING_ENABLED", "SERVICE_TRACING_ENABLED"],
      ["EVALTRACE_SAMPLE_RATE", "SERVICE_SAMPLE_RATE"],
      ["EVALTRACE_ENVIRONMENT", "SERVICE_ENVIRONMENT"],
    ]);
  });

  for (const c of cases) {
    const { name, deprecated } = ENV_VARS[c.option];
    it(`${name} sets ${c.option}, with no warning`, () => {
      const logger = keeping();
      expect(c.read(resolveOptions({ logger }, { [name]: c.value }))).toEqual(c.expected);
      expect(logger.warnings).toEqual([]);
    });

    it(`${deprecated} still sets ${c.option}; ${name} wins when both are set; one warning naming ${name}`, () => {
      const logger = keeping();
      expect(c.read(resolveOptions({ logger }, { [deprecated]: c.value }))).toEqual(c.expected);
      // Set both: the new name's value (here the default's) is taken, not the old one.
      const both = resolveOptions({ logger }, { [deprecated]: c.value, [name]: c.option === "enabled" ? "true" : c.option === "apiKey" ? "other-key" : c.option === "baseUrl" ? "http://127.0.0.1:8" : c.option === "sampleRate" ? "1" : "production" });
      expect(c.read(both)).not.toEqual(c.expected);
      resolveOptions({ logger }, { [deprecated]: c.value });
      expect(logger.warnings).toEqual([`environment variable ${deprecated} is deprecated: set ${name} instead (${deprecated} is still read when ${name} is not set)`]);
    });
  }

  it("a bad value under a deprecated name is named by that name", () => {
    expect(resolveOptions({ logger: keeping() }, { SERVICE_SAMPLE_RATE: "half" }).envProblems).toEqual([
      'environment variable SERVICE_SAMPLE_RATE="half" is not a number from 0 to 1; every trace is kept',
    ]);
  });

  for (const format of formats) {
    it(`${format}: one warning per deprecated variable per process, whatever reads it (configure twice, a Client, the other module format's copy)`, async () => {
      const dev = await startDevServer({ port: 0 });
      try {
        const load = format === "esm" ? `import * as sdk from "evaltrace"; import { createRequire } from "node:module"; const other = createRequire(import.meta.url)("evaltrace");` : `const sdk = require("evaltrace"); const other = await import("evaltrace");`;
        const child = runChild(
          format,
          `${load}
           sdk.configure({ registerExitHooks: false });
           sdk.configure({ registerExitHooks: false });
           other.configure({ registerExitHooks: false });
           const client = new sdk.Client();
           const metrics = await client.metrics.list();
           await client.close();
           await sdk.observe({ name: "t" }, async () => 1)();
           const r = await sdk.flush();
           console.log("RESULT " + JSON.stringify({ metrics: metrics.length > 0, delivered: r.delivered }));`,
          { SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url, SERVICE_ENVIRONMENT: "testing" },
        );
        const done = await child.finished;
        expect(done.stdout).toContain('RESULT {"metrics":true,"delivered":1}');
        const warnings = done.stderr.split("\n").filter((l) => l.includes("is deprecated"));
        expect(warnings.sort()).toEqual([
          "[evaltrace] environment variable SERVICE_API_KEY is deprecated: set EVALTRACE_API_KEY instead (SERVICE_API_KEY is still read when EVALTRACE_API_KEY is not set)",
          "[evaltrace] environment variable SERVICE_BASE_URL is deprecated: set EVALTRACE_BASE_URL instead (SERVICE_BASE_URL is still read when EVALTRACE_BASE_URL is not set)",
          "[evaltrace] environment variable SERVICE_ENVIRONMENT is deprecated: set EVALTRACE_ENVIRONMENT instead (SERVICE_ENVIRONMENT is still read when EVALTRACE_ENVIRONMENT is not set)",
        ]);
        expect(Object.values(dev.state.traces).map((t) => t.fields.environment)).toEqual(["testing"]);
      } finally {
        await dev.close();
      }
    });
  }
});
