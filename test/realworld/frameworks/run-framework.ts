import { expect } from "vitest";
import { judge, normalizeOutput, type Outcome, type Span } from "../harness.js";
import { isModelCall } from "../tap.js";
import { allSpans, runSetup, type SetupRun } from "./setups.js";

// Runs a framework's official program (test/realworld/frameworks/<name>/program.*) in a child
// process, against the fake model servers (each behind a tap that records what it served) and a
// fresh emulator, with the preloads of one setup: none (plain), a bridge preload of the test's
// (the framework's telemetry on a provider with EvaltraceSpanProcessor), `evaltrace/auto`, or both.

const RUN_TIMEOUT_MS = 60_000;

/** The setups a framework is run in, besides plain. */
export type Setup = "bridge" | "zero-code" | "both";

/** One run of a program, and what the emulator stored from it. */
export type FrameworkRun = SetupRun;

/** `--import` flags for a setup: the test's bridge preload (a file URL) and/or evaltrace/auto. */
export function preloadsFor(setup: Setup | "plain", bridge: string): string[] {
  const auto = ["--import", "evaltrace/auto"];
  const own = ["--import", bridge];
  return setup === "plain" ? [] : setup === "bridge" ? own : setup === "zero-code" ? auto : [...auto, ...own];
}

/** How a run ends beyond its own end. */
export interface RunOptions {
  /** Variables beyond harness.ts's. */
  env?: Record<string, string>;
  /**
   * For a program that never ends on its own (something in the framework keeps the event loop
   * alive): once stdout holds this text, the process is sent SIGTERM, as a server is stopped.
   */
  stopOnceItPrints?: string;
}

/** Runs `program` once with `preload` (before tsx and seeded-random), fresh fakes and emulator (setups.ts). */
export function runFramework(program: string, preload: string[], options: RunOptions = {}): Promise<FrameworkRun> {
  return runSetup(program, preload, options.env, { stopOnceItPrints: options.stopOnceItPrints, timeoutMs: RUN_TIMEOUT_MS });
}

export const llmSpans = (run: FrameworkRun): Span[] => allSpans(run).filter((s) => s.type === "llm");
export const toolSpans = (run: FrameworkRun): Span[] => allSpans(run).filter((s) => s.type === "tool");

/**
 * What the Done-when of issue 43 asks of a traced run, beside the plain one: the real-world
 * suite's checks (same exit code and stdout, nothing new on stderr; one llm span per model
 * request served; readable messages and output; tokens as served, once; every tool call named;
 * system prompts kept; nothing force-ended or orphaned), one trace, llm and tool spans nested
 * under its root, each tool span with its arguments and result.
 */
export function expectTracedLikeDoneWhen(plain: FrameworkRun, traced: FrameworkRun, id: string): void {
  expect(failedChecks(plain, traced, id)).toEqual({});
  expect(traced.traces, "one trace per run").toHaveLength(1);
  const [trace] = traced.traces;
  const root = trace!.spans.filter((s) => !s.parentUuid);
  expect(root, "one root").toHaveLength(1);
  const llm = llmSpans(traced);
  expect(llm.length, "llm spans").toBeGreaterThan(0);
  expect(llm.length).toBe(traced.calls.filter(isModelCall).length);
  for (const s of [...llm, ...toolSpans(traced)]) expect(s.parentUuid, `${s.name} nested under the root`).toBeTruthy();
  for (const s of llm) {
    expect(typeof s.model, `${s.name}: model`).toBe("string");
    expect(typeof s.inputTokenCount, `${s.name}: input tokens`).toBe("number");
    expect(typeof s.outputTokenCount, `${s.name}: output tokens`).toBe("number");
  }
  const tools = toolSpans(traced);
  expect(tools.length, "tool spans").toBeGreaterThan(0);
  for (const s of tools) {
    expect(s.input, `${s.name}: arguments`).toBeDefined();
    expect(s.output, `${s.name}: result`).toBeDefined();
  }
}

/** The real-world suite's checks (harness.ts `judge`) a traced run fails, each with why. */
export function failedChecks(plain: FrameworkRun, traced: FrameworkRun, id: string): Record<string, string> {
  const outcome: Outcome = { plain, traced, traces: traced.traces };
  const failed: Record<string, string> = {};
  for (const [check, v] of Object.entries(judge(outcome, { id, file: id }))) if (v.status === "fail") failed[check] = v.why;
  return failed;
}

/** The plain run went as the program means: exit 0, an answer printed, nothing on stderr. */
export function expectPlainRunClean(plain: FrameworkRun): void {
  expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: "" });
  expect(plain.calls.filter(isModelCall).length, "the fakes served the program").toBeGreaterThan(0);
}

/** stdout with what differs between any two runs masked (test/realworld/harness.ts). */
export const normalized = (run: FrameworkRun): string => normalizeOutput(run.stdout);
