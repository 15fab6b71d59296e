import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type DoctorReport, doctor } from "../../src/doctor/index.js";
import { EvaltraceSpanProcessor, flush, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});
afterEach(() => trace.disable());

const providerFindings = async () => (await doctor({ timeoutMillis: 500 })).findings.filter((f) => f.check === "tracer-provider");

describe("doctor(): the global tracer provider", () => {
  it("none registered: ok, saying observe() sends directly", async () => {
    expect(await providerFindings()).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("no global OpenTelemetry tracer provider") })]);
  });

  it("a foreign provider without EvaltraceSpanProcessor: a warning naming it (BasicTracerProvider), with the fix of adding one", async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }));
    expect(await providerFindings()).toEqual([
      expect.objectContaining({
        ok: false,
        severity: "warning",
        message: expect.stringContaining("the global tracer provider (BasicTracerProvider) is not ours and has no EvaltraceSpanProcessor"),
        fix: expect.stringContaining("new EvaltraceSpanProcessor()"),
      }),
    ]);
  });

  it("a foreign provider carrying EvaltraceSpanProcessor: ok; the probe span reaches the app's other processor and is not recorded as a trace", async () => {
    const appExporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter), new EvaltraceSpanProcessor()] }));
    const before = Object.keys(dev.state.traces).length;
    expect(await providerFindings()).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("(BasicTracerProvider) carries EvaltraceSpanProcessor") })]);
    await flush();
    expect(Object.keys(dev.state.traces)).toHaveLength(before);
    expect(appExporter.getFinishedSpans().map((s) => s.name)).toEqual(["evaltrace.doctor.probe"]);
  });

  it("none registered while an EvaltraceSpanProcessor exists on a provider of its own: ok, noting that provider is not the global one", async () => {
    new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] });
    expect(await providerFindings()).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("on a provider that is not the global one") })]);
  });
});

describe("doctor() report shape", () => {
  it("findings come grouped in the order of CHECKS, every check at least once", async () => {
    const report: DoctorReport = await doctor({ timeoutMillis: 500 });
    const order = [...new Set(report.findings.map((f) => f.check))];
    expect(order).toEqual(["config", "base-url", "api-key", "duplicates", "tracer-provider", "integrations", "module-format", "exit-flush", "spool"]);
    expect(report.inApp).toBe(true);
  });
});
