import { type ChildProcess, spawn } from "node:child_process";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startDevServer } from "../../src/devserver/index.js";
import { startFakeAnthropic, startFakeBedrock, startFakeGoogleGenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { packageRoot } from "../helpers/child.js";
import { node22ChildFlags } from "../helpers/node22.js";
import type { Program } from "./programs.js";
import { isModelCall, type ServedCall, startTap, type Tap } from "./tap.js";

export const programsDir = fileURLToPath(new URL("./programs/", import.meta.url));
const seededRandom = pathToFileURL(fileURLToPath(new URL("./seeded-random.mjs", import.meta.url))).href;
const tsconfig = fileURLToPath(new URL("./tsconfig.programs.json", import.meta.url));

/** One run of a program. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** What its companion server printed. */
  companion?: { stdout: string; stderr: string };
  ms: number;
  /** What the fakes served it, in order. */
  calls: ServedCall[];
}

/** A span as the emulator stored it. */
export type Span = Record<string, unknown> & { uuid: string; parentUuid?: string; type?: string; name?: string };

/** A trace as the emulator's read API gives it: its summary fields and its spans. */
export interface StoredTrace {
  uuid: string;
  metadata?: Record<string, unknown>;
  spans: Span[];
}

/** Both runs of a program, and what the instrumented one stored. */
export interface Outcome {
  plain: Run;
  traced: Run;
  traces: StoredTrace[];
}

const PROGRAM_TIMEOUT_MS = 120_000;

/** A child process's end and output. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  /** Resolves once stdout holds `text` (rejects if the process ends first). */
  printed(text: string): Promise<void>;
  ended: Promise<Ended>;
}

/** Spawns `file` (TypeScript through tsx) with `preload` before our own preloads. */
export function start(file: string, args: string[], preload: string[], env: Record<string, string>, stdin: string): Started {
  const flags = [...preload, "--import", seededRandom, ...(/\.[cm]?ts$/.test(file) ? ["--import", "tsx"] : [])];
  const child = spawn(process.execPath, [...flags, file, ...args], { cwd: packageRoot, env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.on("error", () => {});
  child.stdin!.end(stdin);
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
    for (const w of waiters.filter((w) => stdout.includes(w.text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const ended = new Promise<Ended>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    child,
    ended,
    printed: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.includes(text)) return resolve();
        waiters.push({ text, resolve });
        void ended.then((e) => reject(new Error(`ended (${e.code ?? e.signal}) before printing ${JSON.stringify(text)}: ${e.stderr.slice(0, 500)}`)));
      }),
  };
}

/** Ends `started` (`signal`, then SIGKILL if it lingers) and waits for it. */
async function stop(started: Started, signal: NodeJS.Signals, graceMs: number): Promise<Ended> {
  started.child.kill(signal);
  const timer = setTimeout(() => started.child.kill("SIGKILL"), graceMs);
  const ended = await started.ended;
  clearTimeout(timer);
  return ended;
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `program` once, against fresh fakes (so that their ids and counters start alike in both runs). */
/** The fakes' base URLs (their taps'), for a program that reads a variable of its own. */
export interface FakeUrls {
  openai: string;
  anthropic: string;
  google: string;
  bedrock: string;
}

/** The fake model servers, each behind a tap that records what it served. */
export interface TappedFakes {
  urls: FakeUrls;
  /** The environment a program runs in: each SDK pointed at its tap, `service` the emulator. */
  env(service: { url: string; key: string }): Record<string, string>;
  /** What the fakes served, in order. */
  calls(): ServedCall[];
  close(): Promise<void>;
}

/** Starts the four fakes behind taps (`pace`: headers each tap adds to every request, to slow streams). */
export async function startTappedFakes(pace: Record<string, string> = {}): Promise<TappedFakes> {
  const fakes = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGoogleGenAI(), startFakeBedrock()]);
  const [openai, anthropic, google, bedrock] = fakes;
  const taps: Tap[] = await Promise.all([
    startTap("openai", openai.url, pace),
    startTap("anthropic", anthropic.url, pace),
    startTap("google", google.url, pace),
    startTap("bedrock", bedrock.url, pace),
  ]);
  const [openaiTap, anthropicTap, googleTap, bedrockTap] = taps as [Tap, Tap, Tap, Tap];
  return {
    urls: { openai: openaiTap.url, anthropic: anthropicTap.url, google: googleTap.url, bedrock: bedrockTap.url },
    env: (service) => ({
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      // Each SDK's own variables for its key and base URL: the programs are run as their READMEs say.
      OPENAI_API_KEY: "sk-fake",
      OPENAI_BASE_URL: openaiTap.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_BASE_URL: anthropicTap.url,
      GEMINI_API_KEY: "fake-gemini-key",
      GOOGLE_GEMINI_BASE_URL: googleTap.url,
      // The AWS SDK's service-specific endpoint variable, static credentials (unchecked), and no
      // warning about the Node version on stderr (it depends on the Node that runs the suite).
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrockTap.url,
      AWS_ACCESS_KEY_ID: "AKIAFAKEFAKEFAKEFAKE",
      AWS_SECRET_ACCESS_KEY: "fake-secret-access-key",
      AWS_REGION: "us-east-1",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // evaltrace/auto reads these (a plain run has them too, unread: every run sees the same environment).
      EVALTRACE_API_KEY: service.key,
      EVALTRACE_BASE_URL: service.url,
      // The examples were written against their repositories' compiler settings, not ours.
      TSX_TSCONFIG_PATH: tsconfig,
      NO_COLOR: "1",
    }),
    calls: () => taps.flatMap((t) => t.calls),
    close: async () => {
      await Promise.all([...taps.map((t) => t.close()), ...fakes.map((f) => f.close())]);
    },
  };
}

async function runOnce(program: Program, ownPreload: string[], service: { url: string; key: string }): Promise<Run> {
  const preload = program.node22 ? [...ownPreload, ...node22ChildFlags] : ownPreload;
  const fakes = await startTappedFakes(program.paceMs ? { "x-fake-stream-delay-ms": String(program.paceMs) } : {});
  const env = fakes.env(service);
  const started = Date.now();
  const port = program.companion ? await freePort() : 0;
  const companion = program.companion ? start(`${programsDir}${program.companion.file}`, [], preload, { ...env, MCP_PORT: String(port) }, "") : undefined;
  try {
    if (companion && program.companion) await withTimeout(companion.printed(program.companion.ready), 60_000, "the companion never became ready");
    const args = (program.args ?? []).map((a) => a.replaceAll("{port}", String(port)));
    const main = start(`${programsDir}${program.file}`, args, preload, env, program.stdin ?? "");
    const timer = setTimeout(() => main.child.kill("SIGKILL"), PROGRAM_TIMEOUT_MS);
    const ended = await main.ended;
    clearTimeout(timer);
    const side = companion ? await stop(companion, "SIGINT", 10_000) : undefined;
    // The companion's port is picked per run: it is masked where the programs print it.
    const masked = (text: string) => (companion ? text.replaceAll(`:${port}`, ":<port>").replaceAll(`port ${port}`, "port <port>") : text);
    return {
      code: ended.code,
      signal: ended.signal,
      stdout: masked(ended.stdout),
      stderr: masked(ended.stderr),
      ...(side ? { companion: { stdout: masked(side.stdout), stderr: masked(side.stderr) } } : {}),
      ms: Date.now() - started,
      calls: fakes.calls(),
    };
  } finally {
    if (companion && companion.child.exitCode === null && companion.child.signalCode === null) await stop(companion, "SIGKILL", 1_000);
    await fakes.close();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

/** Every trace the emulator stored, through its read API (`GET /_dev/traces`, then each by uuid). */
async function storedTraces(url: string): Promise<StoredTrace[]> {
  const list = (await (await fetch(`${url}/_dev/traces`)).json()) as { uuid: string }[];
  return Promise.all(
    list.map(async ({ uuid }) => {
      const t = (await (await fetch(`${url}/_dev/traces/${encodeURIComponent(uuid)}`)).json()) as StoredTrace;
      return { uuid: t.uuid, ...(t.metadata ? { metadata: t.metadata } : {}), spans: t.spans };
    }),
  );
}

/** Runs `program` plain, then under `--import evaltrace/auto` against a fresh emulator, and reads what it stored. */
export async function runProgram(program: Program): Promise<Outcome> {
  const dev = await startDevServer({ port: 0 });
  try {
    const service = { url: dev.url, key: dev.projectKey };
    const plain = await runOnce(program, [], service);
    const traced = await runOnce(program, ["--import", "evaltrace/auto"], service);
    return { plain, traced, traces: await storedTraces(dev.url) };
  } finally {
    await dev.close();
  }
}

/** Runs `tasks` with at most `limit` at a time. */
export async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// The checks. Each answers pass, fail (with why) or n/a (the program gives it nothing to check).

export type Verdict = { status: "pass" } | { status: "fail"; why: string } | { status: "n/a"; why: string };
const pass: Verdict = { status: "pass" };
const fail = (why: string): Verdict => ({ status: "fail", why });
const na = (why: string): Verdict => ({ status: "n/a", why });

export const CHECKS = ["output", "spans", "readable", "tokens", "tools", "system", "closed"] as const;
export type Check = (typeof CHECKS)[number];

/** What each check asserts, for the test names and the summary. */
export const CHECK_TITLES: Record<Check, string> = {
  output: "(a) same exit code and stdout with and without evaltrace/auto, nothing new on stderr",
  spans: "(b) one llm span per model request the fakes served (and the fakes served the program)",
  readable: "(c) llm input a list of {role, content} strings, output text (none only on a call that failed before any)",
  tokens: "(d) token counts equal to what the fakes reported",
  tools: "(e) every tool call the model made is named in toolsCalled",
  system: "(f) every system prompt / instructions sent is in the llm input",
  closed: "(g) nothing force-ended, no orphan spans",
};

/**
 * What differs between any two runs of a program: times and dates (the fakes' `created`
 * timestamps among them), UUIDs, durations printed in ms, and the frames of a printed stack
 * trace (they say where code is, and a wrapper is code).
 */
export function normalizeOutput(text: string): string {
  return text
    .replace(/(?:^[ \t]+at .*(?:\n|$))+/gm, "    at <frames>\n")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g, "<time>")
    .replace(/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g, "<time>")
    .replace(/(created(?:_at)?|completed_at|timestamp)(['"]?\s*:\s*)\d{10,13}\b/g, "$1$2<time>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>")
    .replace(/\b\d+(?:\.\d+)?\s?ms\b/g, "<ms>");
}

const lines = (s: string) => new Set(s.split("\n").map((l) => l.trimEnd()).filter(Boolean));

function checkOutput(o: Outcome, program: Program): Verdict {
  const norm = (s: string) => (program.normalize ? program.normalize(normalizeOutput(s)) : normalizeOutput(s));
  if (o.plain.code !== o.traced.code || o.plain.signal !== o.traced.signal) return fail(`exit ${o.plain.code ?? o.plain.signal} plain, ${o.traced.code ?? o.traced.signal} traced`);
  const a = norm(o.plain.stdout);
  const b = norm(o.traced.stdout);
  if (a !== b) {
    const i = [...a].findIndex((c, k) => c !== b[k]);
    const at = i < 0 ? Math.min(a.length, b.length) : i;
    return fail(`stdout differs at ${at}: plain ${JSON.stringify(a.slice(at, at + 120))}, traced ${JSON.stringify(b.slice(at, at + 120))}`);
  }
  // A server logs its requests as they come, and they may come in either order: its lines are compared as a set.
  if (o.plain.companion && o.traced.companion) {
    const [x, y] = [lines(norm(o.plain.companion.stdout)), lines(norm(o.traced.companion.stdout))];
    const differ = [...[...x].filter((l) => !y.has(l)).map((l) => `-${l}`), ...[...y].filter((l) => !x.has(l)).map((l) => `+${l}`)];
    if (differ.length > 0) return fail(`companion's stdout differs: ${differ.slice(0, 3).join(" | ").slice(0, 400)}`);
  }
  const before = lines(`${norm(o.plain.stderr)}\n${norm(o.plain.companion?.stderr ?? "")}`);
  const added = [...lines(`${norm(o.traced.stderr)}\n${norm(o.traced.companion?.stderr ?? "")}`)].filter((l) => !before.has(l));
  if (added.length > 0) return fail(`new on stderr: ${added.slice(0, 3).join(" | ").slice(0, 400)}`);
  return pass;
}

const llmSpans = (o: Outcome) => o.traces.flatMap((t) => t.spans).filter((s) => s.type === "llm");
const modelCalls = (o: Outcome) => o.traced.calls.filter(isModelCall);

function checkSpans(o: Outcome, program: Program): Verdict {
  // A program that never reached the fakes (it stopped before its first request) checks nothing:
  // only a program that talks to its companion alone may do without them.
  if (o.traced.calls.length === 0 && !program.companion) return fail("the fakes served no request: the program stopped before it reached a model");
  const served = modelCalls(o).length;
  const spans = llmSpans(o).length;
  return spans === served ? pass : fail(`${spans} llm span(s) for ${served} model request(s) served`);
}

const isMessage = (m: unknown): boolean => typeof m === "object" && m !== null && typeof (m as Record<string, unknown>).role === "string" && typeof (m as Record<string, unknown>).content === "string";

function checkReadable(o: Outcome): Verdict {
  const spans = llmSpans(o);
  if (spans.length === 0) return na("no llm span");
  for (const s of spans) {
    const embedding = typeof s.output === "string" && /^\[\d+ embedding/.test(s.output);
    if (!Array.isArray(s.input) || !s.input.every(isMessage)) return fail(`${s.name}: input ${JSON.stringify(s.input)?.slice(0, 200)}`);
    // A call that failed before the model said anything (an aborted stream) has no output; any other has text.
    const silentError = s.output === undefined && s.status === "ERRORED";
    if (!silentError && (typeof s.output !== "string" || (!embedding && /"lc":\s*1|\[object Object\]/.test(s.output)))) return fail(`${s.name}: output ${JSON.stringify(s.output)?.slice(0, 200)}`);
    if (s.input.some((m) => /"lc":\s*1|\[object Object\]/.test((m as { content: string }).content))) return fail(`${s.name}: unreadable message in ${JSON.stringify(s.input).slice(0, 200)}`);
  }
  return pass;
}

/** Whether `a` and `b` hold the same strings, each as many times, in any order. */
const sameTally = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

function checkTokens(o: Outcome): Verdict {
  const calls = modelCalls(o);
  if (calls.length === 0) return na("no model request");
  const served = calls.map((c) => `${c.inputTokens ?? "-"}/${c.outputTokens ?? "-"}`);
  const recorded = llmSpans(o).map((s) => `${(s.inputTokenCount as number | undefined) ?? "-"}/${(s.outputTokenCount as number | undefined) ?? "-"}`);
  return sameTally(served, recorded) ? pass : fail(`served in/out ${served.join(" ")}; spans ${recorded.join(" ")}`);
}

function checkTools(o: Outcome): Verdict {
  const called = modelCalls(o).flatMap((c) => c.toolCalls);
  if (called.length === 0) return na("the model called no tool");
  const named = llmSpans(o).flatMap((s) => (Array.isArray(s.toolsCalled) ? s.toolsCalled.map((t) => String((t as { name?: unknown }).name)) : []));
  return sameTally(called, named) ? pass : fail(`model called ${called.join(", ")}; toolsCalled name ${named.join(", ") || "none"}`);
}

function checkSystem(o: Outcome): Verdict {
  const prompts = [...new Set(modelCalls(o).flatMap((c) => (c.system ? [c.system.trim()] : [])))];
  if (prompts.length === 0) return na("no request carried a system prompt");
  const seen = llmSpans(o).flatMap((s) => (Array.isArray(s.input) ? s.input : []).filter((m) => isMessage(m) && ["system", "developer"].includes((m as { role: string }).role)).map((m) => (m as { content: string }).content.trim()));
  const missing = prompts.filter((p) => !seen.some((t) => t === p || t.includes(p)));
  return missing.length === 0 ? pass : fail(`not in any llm input: ${missing.map((p) => JSON.stringify(p.slice(0, 80))).join(", ")}`);
}

function checkClosed(o: Outcome): Verdict {
  const problems: string[] = [];
  for (const t of o.traces) {
    const open = t.metadata?.["evaltrace.unfinishedSpans"];
    if (open !== undefined) problems.push(`trace ${t.uuid.slice(0, 8)} sent with ${String(open)} span(s) open`);
    const ids = new Set(t.spans.map((s) => s.uuid));
    for (const s of t.spans) {
      if ((s.metadata as Record<string, unknown> | undefined)?.["evaltrace.unfinished"]) problems.push(`${s.name} force-ended`);
      if (s.parentUuid && !ids.has(s.parentUuid)) problems.push(`${s.name} orphaned (parent ${s.parentUuid.slice(0, 8)} not in its trace)`);
    }
  }
  if (o.traces.length === 0) return na("nothing stored");
  return problems.length === 0 ? pass : fail(problems.slice(0, 4).join("; "));
}

/** Every check of one program's outcome. */
export function judge(o: Outcome, program: Program): Record<Check, Verdict> {
  return {
    output: checkOutput(o, program),
    spans: checkSpans(o, program),
    readable: checkReadable(o),
    tokens: checkTokens(o),
    tools: checkTools(o),
    system: checkSystem(o),
    closed: checkClosed(o),
  };
}
