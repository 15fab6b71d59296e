// One subject in workload C's shape, driven by bench/late-turns.mjs: warm-up, a collected heap,
// then traces in waves of WAVE with the loop turning between waves, and a flush. A 1 ms timer
// marks every gap of more than LATE_MS between two of its calls (a turn at least 2 ms late) and
// reads how long this thread waited for a CPU during the gap (Linux's
// /proc/thread-self/schedstat: its second field is the nanoseconds a runnable thread spent
// waiting for a core). Prints one JSON line.
//   node late-turns-child.mjs <subject> <receiver url> <receiver pid> <traces>
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { agentWaves } from "./common.mjs";
import { subjectEnv, subjects, WAVE } from "./subjects.mjs";

Object.assign(process.env, subjectEnv);
const [name, url, receiverPid, traces] = process.argv.slice(2);
const WARM_TRACES = 500;
/** A gap this long between two calls of the 1 ms timer is a late turn. */
const LATE_MS = 3;

/** Nanoseconds this thread has waited for a CPU while runnable; undefined off Linux. */
function waitedNs() {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** CPU milliseconds (user + system) a process has used so far; undefined off Linux. */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

const app = await subjects[name](`${url}/s/${encodeURIComponent(name)}`);
for (let i = 0; i < WARM_TRACES; i += WAVE) await Promise.all(Array.from({ length: WAVE }, (_, j) => app.agent(`warm ${i + j}`)));
await app.flush();
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 50));

const late = [];
let last = performance.now();
let lastWait = waitedNs();
const timer = setInterval(() => {
  const now = performance.now();
  const wait = waitedNs();
  if (now - last > LATE_MS) late.push({ gapMs: now - last, waitMs: wait === undefined || lastWait === undefined ? undefined : (wait - lastWait) / 1e6 });
  last = now;
  lastWait = wait;
}, 1);
const receiverCpu0 = cpuMsOf(receiverPid);
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
const t0 = performance.now();
await agentWaves(app, Number(traces), WAVE);
await app.flush();
const ms = performance.now() - t0;
h.disable();
clearInterval(timer);
const receiverCpu1 = cpuMsOf(receiverPid);
const waits = late.map((t) => t.waitMs);
console.log(
  JSON.stringify({
    ms,
    samples: h.count,
    p99Ms: h.percentile(99) / 1e6,
    lateTurns: late.length,
    lateMs: late.reduce((a, t) => a + t.gapMs, 0),
    lateWaitMs: waits.includes(undefined) ? null : waits.reduce((a, w) => a + w, 0),
    receiverCpuMs: receiverCpu0 === undefined || receiverCpu1 === undefined ? null : receiverCpu1 - receiverCpu0,
  }),
);
process.exit(0);
