import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../helpers/child.js";
import { node22Installed, node22Missing } from "../helpers/node22.js";
import { runsHere } from "../helpers/skips.js";
import { CHECK_TITLES, CHECKS, type Check, judge, pool, runProgram, type Verdict } from "./harness.js";
import { type Program, programs } from "./programs.js";

// Our own real-world suite (issues 31 and 42): official example programs of the SDKs we instrument, copied
// verbatim into test/realworld/programs/ (sources, commits and licences in programs/SOURCES.md),
// each run unmodified against the fake model servers twice, plain and under
// `--import evaltrace/auto` (children load dist/: build first with `npx tsup`), two programs at a
// time, and checked:
// (a) same exit code and stdout, nothing new on stderr; (b) one llm span per model request
// served (generations, and embeddings of OpenAI, Gemini and Bedrock, which are llm spans too;
// token counting is not a model request; a program the fakes served nothing fails it: it checked
// nothing); (c) messages and replies as readable text; (d) token counts as the fakes reported
// them; (e) the model's tool calls named in toolsCalled; (f) the system prompt or instructions
// sent present in the llm input; (g) nothing force-ended (the emulator's stored
// `evaltrace.unfinished` marks) and no orphan spans. What the fakes served is read off the wire
// by a proxy in front of each (tap.ts), so no check depends on a table of what a program does.
// Both runs get the same environment and preloads (harness.ts): the SDKs' own base-URL
// variables, tsx with the examples' compiler settings, and seeded-random.mjs (a fixed
// Math.random for the programs' own made-up weather); stdout is compared with dates, ids and
// stack frames masked (normalizeOutput).

const FILE = "test/realworld/realworld.test.ts";

const runIdChunk =
  "evaltrace/auto registers a LangChain callback handler for every run, and with any handler LangChain gives a streamed chunk that has no id of its own (here the final usage chunk) the id `run-<runId>` (BaseChatModel._streamIterator): the program prints a field it does not print untraced (LangSmith's tracer changes it the same way)";
/**
 * Checks that fail today for a known bug: each is asserted to STILL fail, so that the fix
 * flips it and this table has to be updated. Never skip a check instead.
 */
const knownGaps: { program: string; check: Check; why: string }[] = [
  { program: "langchain/how_to_cancellation", check: "output", why: runIdChunk },
  { program: "langchain/chat_streaming_stream_method", check: "output", why: runIdChunk },
];

// Zero-code rides on Node's module hooks; Bun has neither (see test/auto/zero-code.test.ts).
const onNode = runsHere(!("Bun" in globalThis), FILE, "zero-code needs Node's module hooks, which Bun does not have");

const atLeast = (version: string, min: string) => {
  const [a = 0, b = 0] = version.split(".").map(Number);
  const [x = 0, y = 0] = min.split(".").map(Number);
  return a > x || (a === x && b >= y);
};
// EVALTRACE_REALWORLD_ONLY=<regex> runs the programs whose id matches (while working on one).
const only = process.env.EVALTRACE_REALWORLD_ONLY ? new RegExp(process.env.EVALTRACE_REALWORLD_ONLY) : undefined;
const runnable: Program[] = [];
for (const p of programs) {
  if (only && !only.test(p.id)) continue;
  if (p.minNode && !atLeast(process.versions.node, p.minNode)) runsHere(false, FILE, `${p.id} needs Node ${p.minNode}+ (here ${process.versions.node}); scripts/runtimes.mjs runs it on Node 22 and 24`);
  else if (p.node22 && !node22Installed) runsHere(false, FILE, `${p.id}: ${node22Missing}`);
  else runnable.push(p);
}

const verdicts = new Map<string, Record<Check, Verdict>>();
const durations = new Map<string, number>();
let started = 0;

beforeAll(async () => {
  if (!onNode) return;
  started = Date.now();
  // What each run printed and stored, to read when a check fails: test-artifacts/realworld/<id>.json.
  const artifacts = join(packageRoot, "test-artifacts", "realworld");
  mkdirSync(artifacts, { recursive: true });
  // Two programs at a time: each is a few Node processes (tsx, the SDK), on a loaded machine.
  await pool(runnable, 2, async (p) => {
    const outcome = await runProgram(p);
    verdicts.set(p.id, judge(outcome, p));
    writeFileSync(join(artifacts, `${p.id.replaceAll("/", "__")}.json`), JSON.stringify({ program: p, verdicts: verdicts.get(p.id), ...outcome }, null, 2));
    durations.set(p.id, outcome.plain.ms + outcome.traced.ms);
  });
}, 900_000);

afterAll(() => {
  if (!onNode || verdicts.size === 0) return;
  const mark = (id: string, c: Check) => {
    const v = verdicts.get(id)?.[c];
    if (!v) return "?";
    if (knownGaps.some((g) => g.program === id && g.check === c)) return v.status === "fail" ? "gap" : "GAP?";
    return v.status === "pass" ? "ok" : v.status === "n/a" ? "-" : "FAIL";
  };
  const width = Math.max(...runnable.map((p) => p.id.length));
  const rows = runnable.map((p) => `  ${p.id.padEnd(width)}  ${CHECKS.map((c) => mark(p.id, c).padEnd(4)).join(" ")}  ${((durations.get(p.id) ?? 0) / 1000).toFixed(1)}s`);
  const all = runnable.flatMap((p) => CHECKS.map((c) => mark(p.id, c)));
  const count = (m: string) => all.filter((x) => x === m).length;
  const gaps = knownGaps.filter((g) => runnable.some((p) => p.id === g.program));
  console.log(
    [
      "",
      `Real-world programs: ${runnable.length} run, ${programs.length - runnable.length} not run here${only ? " or not selected" : ""}; ${CHECKS.length} checks each (a-g: ${CHECKS.join(", ")}); ${((Date.now() - started) / 1000).toFixed(0)}s`,
      `  ${"program".padEnd(width)}  ${CHECKS.map((_, i) => `(${"abcdefg"[i]})`.padEnd(4)).join(" ")}  time (both runs)`,
      ...rows,
      `checks: ${all.length}; pass ${count("ok")}, n/a ${count("-")}, known gaps ${count("gap")}, failing ${count("FAIL")}, gaps that pass now ${count("GAP?")}`,
      ...(gaps.length ? ["known gaps:", ...[...new Set(gaps.map((g) => g.why))].map((why) => `  ${gaps.filter((g) => g.why === why).map((g) => `${g.program} ${g.check}`).join(", ")}: ${why}`)] : []),
      "",
    ].join("\n"),
  );
});

describe.skipIf(!onNode).each(runnable.map((p) => [p.id, p] as const))("%s", (id) => {
  it.each(CHECKS.map((c) => [CHECK_TITLES[c], c] as const))("%s", (_title, check) => {
    const v = verdicts.get(id)?.[check];
    expect(v, "the program did not run").toBeDefined();
    const gap = knownGaps.find((g) => g.program === id && g.check === check);
    if (gap) {
      expect(v!.status, `known gap passes now: remove it from knownGaps (${gap.why})`).toBe("fail");
    } else {
      expect(v!.status === "fail" ? `fails: ${v!.why}` : "ok").toBe("ok");
    }
  });
});
