import { fork } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";

/** Starts the receiver child process; resolves with its URL, its pid and a stats() / stop() pair. */
export async function startReceiver() {
  const child = fork(fileURLToPath(new URL("./receiver.mjs", import.meta.url)));
  const { port } = await new Promise((r) => child.once("message", r));
  const ask = (m) =>
    new Promise((r) => {
      child.once("message", r);
      child.send(m);
    });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stats: () => ask("stats"),
    reset: () => child.send("reset"),
    stop: () =>
      new Promise((r) => {
        child.on("exit", r);
        child.send("stop");
      }),
  };
}

/** Median of numbers (of an even count, the mean of the two middle ones). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Lets the event loop turn (timers, I/O) once. */
export const tick = () => new Promise((r) => setImmediate(r));

/** Workload C's traffic: `traces` agent traces in waves of `wave` started together, the loop turning between waves. */
export async function agentWaves(app, traces, wave) {
  for (let i = 0; i < traces; i += wave) {
    const started = [];
    for (let j = 0; j < wave; j++) started.push(app.agent(`question ${i + j}`));
    await Promise.all(started);
    await tick();
  }
}

/** Prints rows as an aligned table. */
export function table(rows) {
  const keys = Object.keys(rows[0]);
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(width[i])).join("  ");
  console.log(line(keys));
  console.log(line(width.map((w) => "-".repeat(w))));
  for (const r of rows) console.log(line(keys.map((k) => r[k])));
}

/** Starts the fake OpenAI server (bench/fake-openai.mjs) in a child process; resolves with its base URL and stop(). */
export async function startFakeOpenAIProcess() {
  const child = fork(fileURLToPath(new URL("./fake-openai.mjs", import.meta.url)));
  const { url } = await new Promise((r) => child.once("message", r));
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((r) => {
        child.on("exit", r);
        child.send("stop");
      }),
  };
}

/** The machine's 1-minute load average and its core count, as a line for a table's footnote. */
export function machineLoad() {
  const [one, five] = os.loadavg();
  return { load1: Number(one.toFixed(2)), load5: Number(five.toFixed(2)), cpus: os.cpus().length };
}
