import { startDevServer } from "../../../src/devserver/index.js";
import { type FakeUrls, normalizeOutput, pool, type Span, type StoredTrace, start, startTappedFakes } from "../harness.js";
import { isModelCall, type ServedCall } from "../tap.js";

// Runs an agent framework's official program (test/realworld/frameworks/<name>/) in a child
// process against the fakes (a recording proxy in front of each, tap.ts) and a fresh emulator,
// in one setup: plain, the framework's own telemetry bridged to evaltrace, zero-code, or both.
// The environment is the real-world suite's (harness.ts): each SDK's own key and base-URL
// variables, tsx with the examples' compiler settings, the fixed Math.random.

const TIMEOUT_MS = 90_000;

/** One setup's run: what the program printed, what the fakes served, what the emulator stored. */
export interface SetupRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  calls: ServedCall[];
  traces: StoredTrace[];
}

export type { FakeUrls } from "../harness.js";

/** How a run ends beyond its own end. */
export interface SetupOptions {
  /**
   * For a program that never ends on its own (something in the framework keeps the event loop
   * alive): once stdout holds this text, the process is sent SIGTERM, as a server is stopped.
   */
  stopOnceItPrints?: string;
  /** Longest run before the process is killed. @default 90 s */
  timeoutMs?: number;
}

/**
 * Runs `program` (a path) with `flags` (Node flags: `--import` preloads, before the suite's own),
 * and `env` (or `env` of the fakes' URLs) added to the suite's environment (harness.ts), against
 * fresh fakes and a fresh emulator; reads every trace the emulator stored, as its read API gives it.
 */
export async function runSetup(program: string, flags: string[], env: Record<string, string> | ((urls: FakeUrls) => Record<string, string>) = {}, options: SetupOptions = {}): Promise<SetupRun> {
  const dev = await startDevServer({ port: 0 });
  const fakes = await startTappedFakes();
  try {
    const childEnv = { ...fakes.env({ url: dev.url, key: dev.projectKey }), ...(typeof env === "function" ? env(fakes.urls) : env) };
    const started = Date.now();
    const run = start(program, [], flags, childEnv, "");
    if (options.stopOnceItPrints !== undefined) run.printed(options.stopOnceItPrints).then(() => run.child.kill("SIGTERM"), () => undefined);
    const timer = setTimeout(() => run.child.kill("SIGKILL"), options.timeoutMs ?? TIMEOUT_MS);
    const { code, signal, stdout, stderr } = await run.ended;
    clearTimeout(timer);
    const ms = Date.now() - started;
    const list = (await (await fetch(`${dev.url}/_dev/traces`)).json()) as { uuid: string }[];
    const traces = await Promise.all(list.map(async ({ uuid }) => (await (await fetch(`${dev.url}/_dev/traces/${encodeURIComponent(uuid)}`)).json()) as StoredTrace));
    return { code, signal, stdout, stderr: withoutLayoutArtefacts(stderr), ms, calls: fakes.calls(), traces };
  } finally {
    await fakes.close();
    await dev.close();
  }
}

/**
 * Node 22+ warns that `punycode` is deprecated (DEP0040) when the first frame outside Node that
 * requires it is not under node_modules. Zero-code's require hook is that frame, and here it is
 * packages/evaltrace/dist (the repository's own build, reached through a symlink), not
 * node_modules/evaltrace/dist as in an app: with a copy of the build under the program's
 * node_modules, `--import evaltrace/auto` prints no such warning (ADK's sample on Node 22.23.3,
 * whose google-auth-library requires punycode; Genkit's dependencies too). These two lines are
 * that artefact of the repository's layout, not something evaltrace prints: they are taken out
 * of a run's stderr, nothing else is.
 */
function withoutLayoutArtefacts(stderr: string): string {
  return stderr.replace(/^\(node:\d+\) \[DEP0040\] DeprecationWarning: The `punycode` module is deprecated\..*\n(?:\(Use `node --trace-deprecation \.\.\.` to show where the warning was created\)\n)?/m, "");
}

/** The spans of every stored trace. */
export const allSpans = (run: SetupRun): Span[] => run.traces.flatMap((t) => t.spans);
/** The model requests the fakes served (generations and embeddings that succeeded). */
export const modelCalls = (run: SetupRun): ServedCall[] => run.calls.filter(isModelCall);

/** What differs between `run` and the untraced run: exit, stdout (times and ids masked), stderr lines that are new. */
export function outputDifferences(plain: SetupRun, run: SetupRun): string[] {
  const problems: string[] = [];
  if (plain.code !== run.code || plain.signal !== run.signal) problems.push(`exit ${plain.code ?? plain.signal} plain, ${run.code ?? run.signal} traced`);
  if (normalizeOutput(plain.stdout) !== normalizeOutput(run.stdout)) problems.push(`stdout differs: plain ${JSON.stringify(plain.stdout.slice(0, 300))}, traced ${JSON.stringify(run.stdout.slice(0, 300))}`);
  const before = new Set(normalizeOutput(plain.stderr).split("\n"));
  const added = normalizeOutput(run.stderr).split("\n").filter((l) => l.trim() !== "" && !before.has(l));
  if (added.length > 0) problems.push(`new on stderr: ${added.slice(0, 3).join(" | ").slice(0, 400)}`);
  return problems;
}

const isMessage = (m: unknown): boolean => typeof m === "object" && m !== null && typeof (m as Record<string, unknown>).role === "string" && typeof (m as Record<string, unknown>).content === "string";
const tally = (xs: string[]) => JSON.stringify([...xs].sort());

/**
 * What is wrong with a run's llm spans (empty when right): one per model request the fakes
 * served, each with its model, its input a list of `{role, content}` messages, its output text
 * (a turn that only calls tools may have none), and the token counts the fakes reported; every
 * tool call the model made named in their `toolsCalled`; every system prompt sent a system
 * message of their input.
 */
export function llmProblems(run: SetupRun): string[] {
  const problems: string[] = [];
  const calls = modelCalls(run);
  if (calls.length === 0) problems.push("the fakes served no model request");
  const llm = allSpans(run).filter((s) => s.type === "llm");
  if (llm.length !== calls.length) problems.push(`${llm.length} llm span(s) for ${calls.length} model request(s)`);
  for (const s of llm) {
    if (typeof s.model !== "string" || s.model === "") problems.push(`llm ${s.name}: no model`);
    if (!Array.isArray(s.input) || s.input.length === 0 || !s.input.every(isMessage)) problems.push(`llm ${s.name}: input ${JSON.stringify(s.input)?.slice(0, 200)}`);
    const toolTurn = Array.isArray(s.toolsCalled) && s.toolsCalled.length > 0;
    if (!toolTurn && (typeof s.output !== "string" || s.output === "")) problems.push(`llm ${s.name}: output ${JSON.stringify(s.output)?.slice(0, 200)}`);
  }
  const served = calls.map((c) => `${c.inputTokens ?? "-"}/${c.outputTokens ?? "-"}`);
  const recorded = llm.map((s) => `${(s.inputTokenCount as number | undefined) ?? "-"}/${(s.outputTokenCount as number | undefined) ?? "-"}`);
  if (tally(served) !== tally(recorded)) problems.push(`tokens served in/out ${served.join(" ")}; llm spans ${recorded.join(" ")}`);
  const called = calls.flatMap((c) => c.toolCalls);
  const named = llm.flatMap((s) => (Array.isArray(s.toolsCalled) ? s.toolsCalled.map((t) => String((t as { name?: unknown }).name)) : []));
  if (tally(called) !== tally(named)) problems.push(`model called ${called.join(", ") || "no tool"}; toolsCalled name ${named.join(", ") || "none"}`);
  const systems = llm.flatMap((s) => (Array.isArray(s.input) ? s.input : []).filter((m) => isMessage(m) && (m as { role: string }).role === "system").map((m) => (m as { content: string }).content));
  for (const prompt of new Set(calls.flatMap((c) => (c.system ? [c.system.trim()] : [])))) if (!systems.some((t) => t.includes(prompt))) problems.push(`system prompt not in any llm input: ${JSON.stringify(prompt.slice(0, 80))}`);
  return problems;
}

/**
 * What is wrong with a run's tree (empty when right): `traces` traces (one per agent run: one
 * unless the program runs its agents one after the other); each llm span under an agent span;
 * one tool span per tool call the model made, under an agent span, with its arguments and its
 * result (its error, if it failed).
 */
export function treeProblems(run: SetupRun, traces = 1): string[] {
  const problems: string[] = [];
  if (run.traces.length !== traces) problems.push(`${run.traces.length} traces (want ${traces})`);
  const spans = allSpans(run);
  const byId = new Map(spans.map((s) => [s.uuid, s]));
  const underAgent = (s: Span) => {
    for (let p = s.parentUuid ? byId.get(s.parentUuid) : undefined; p; p = p.parentUuid ? byId.get(p.parentUuid) : undefined) if (p.type === "agent") return true;
    return false;
  };
  for (const s of spans.filter((x) => x.type === "llm")) if (!underAgent(s)) problems.push(`llm ${s.name} not under an agent span`);
  const called = modelCalls(run).flatMap((c) => c.toolCalls);
  const tools = spans.filter((s) => s.type === "tool");
  if (tools.length !== called.length) problems.push(`${tools.length} tool span(s) for ${called.length} tool call(s)`);
  for (const s of tools) {
    if (!underAgent(s)) problems.push(`tool ${s.name} not under an agent span`);
    if (s.input === undefined || s.input === null || s.input === "") problems.push(`tool ${s.name}: no arguments`);
    // A tool that failed has its error for a result.
    const failed = s.status === "ERRORED" && typeof s.error === "string" && s.error !== "";
    if ((s.output === undefined || s.output === null || s.output === "") && !failed) problems.push(`tool ${s.name}: no result`);
  }
  return problems;
}

/** What the Done-when of issue 43 asks of a run: one trace per agent run, typed and nested, llm and tool spans complete (`treeProblems` and `llmProblems`). */
export const traceProblems = (run: SetupRun, traces = 1): string[] => [...treeProblems(run, traces), ...llmProblems(run)];

/** A trace's tree, one line per span (`type name`, indented under its parent). */
function traceOutline(spans: Span[]): string {
  const lines: string[] = [];
  const ids = new Set(spans.map((s) => s.uuid));
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of spans.filter((x) => (parent === undefined ? !x.parentUuid || !ids.has(x.parentUuid) : x.parentUuid === parent))) {
      lines.push(`${"  ".repeat(depth)}${s.type} ${s.name}`);
      walk(s.uuid, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join("\n");
}

/** Each trace of a run as its tree (see `traceOutline`), sorted: to compare with what a program should give. */
export const outlines = (run: SetupRun): string[] => run.traces.map((t) => traceOutline(t.spans)).sort();

/** Every trace of a run as its tree, to read in a failure. */
export const outline = (run: SetupRun): string => outlines(run).join("\n--\n");

/** A setup of a framework's program: its Node flags and the environment it adds. */
export interface Setup {
  flags: readonly string[];
  env?: Record<string, string> | ((urls: FakeUrls) => Record<string, string>);
}

/** The four setups of a framework whose telemetry set-up (`telemetry`, a file preloaded with --import) carries our span processor. */
export const fourSetups = (telemetry: string, env?: Setup["env"]) => ({
  plain: { flags: [], env },
  bridge: { flags: ["--import", telemetry], env },
  "zero-code": { flags: ["--import", "evaltrace/auto"], env },
  both: { flags: ["--import", "evaltrace/auto", "--import", telemetry], env },
});

/**
 * The runs of a framework's setups: `runAll()` (in a beforeAll) installs the framework's pinned
 * packages (install.mjs) and runs every setup, two at a time; `run(name)` is one's result, `why(name)`
 * what a failed expectation prints of it (its traces' outline, stdout and stderr).
 */
export function frameworkRuns<Name extends string>(framework: string, program: string, setups: Record<Name, Setup>) {
  const runs = new Map<Name, SetupRun>();
  const run = (name: Name): SetupRun => {
    const r = runs.get(name);
    if (!r) throw new Error(`the ${name} run did not happen`);
    return r;
  };
  const why = (name: Name) => `${name} run:\n${outline(run(name))}\nstdout: ${run(name).stdout.slice(0, 600)}\nstderr: ${run(name).stderr.slice(0, 1500)}`;
  const runAll = async () => {
    const { install } = (await import(new URL("./install.mjs", import.meta.url).href)) as { install: (name: string) => void };
    install(framework);
    await pool(Object.keys(setups) as Name[], 2, async (name) => runs.set(name, await runSetup(program, [...setups[name].flags], setups[name].env)));
  };
  return { run, why, runAll };
}
