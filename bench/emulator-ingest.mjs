// node bench/emulator-ingest.mjs (after npx tsup): how long the emulator takes to ingest one
// trace whose spans form a chain (the worst case of the parent check), and how long it holds its
// event loop meanwhile, with a small request sent over and over beside it. The large trace is
// built and sent by a child process, so that its client work (stringify, encode) is not counted
// against the server's event loop. The loop's longest hold is given as wall time (what a client
// waits, inflated when the machine is busy) and as the process's CPU time within that hold (what
// the server itself spent, whatever the load). BENCH_SPAN_ORDER (see the client) lists the spans
// in another order.
import { spawn } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";

if (process.argv[2] === "--client") {
  const [url, key, n] = process.argv.slice(3);
  const spans = Number(n);
  const uuid = `chain-${spans}`;
  const start = Date.parse("2026-06-01T10:00:00.000Z");
  const list = Array.from({ length: spans }, (_, i) => ({
    uuid: `${uuid}-s${i}`,
    name: "step",
    startTime: new Date(start + i).toISOString(),
    endTime: new Date(start + spans + 1).toISOString(),
    ...(i > 0 ? { parentUuid: `${uuid}-s${i - 1}` } : {}),
  }));
  // BENCH_SPAN_ORDER: "start" (the default: each span's parent just before it), "end" (reversed:
  // just after it) or "shuffled" (a fixed pseudo-random order: every parent found by lookup).
  const order = process.env.BENCH_SPAN_ORDER ?? "start";
  if (order === "end") list.reverse();
  if (order === "shuffled") {
    let seed = 42;
    for (let i = list.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [list[i], list[j]] = [list[j], list[i]];
    }
  }
  const body = Buffer.from(JSON.stringify({ uuid, startTime: new Date(start).toISOString(), endTime: new Date(start + spans + 1).toISOString(), baseSpans: list }));
  const started = performance.now();
  const res = await fetch(`${url}/v1/traces`, { method: "POST", headers: { SERVICE_API_KEY: key, "content-type": "application/json" }, body });
  await res.text();
  console.log(JSON.stringify({ status: res.status, millis: performance.now() - started, mb: body.length / 1e6 }));
  process.exit(0);
}

const { startDevServer } = await import("../packages/dev/dist/index.js");
const dev = await startDevServer({ port: 0, maxBodyBytes: 64 * 1024 * 1024, log: () => {}, dataFile: process.env.BENCH_DATA_FILE });

/** The longest time between two turns of the event loop, in wall and CPU milliseconds. */
function holdMonitor() {
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  const worst = { wall: 0, cpu: 0 };
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const cpuMillis = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    worst.wall = Math.max(worst.wall, wall - lastWall);
    worst.cpu = Math.max(worst.cpu, cpuMillis);
    lastWall = wall;
    lastCpu = cpu;
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return worst;
    },
  };
}

console.log("spans    MB    ingest ms  ms/1k spans  max loop delay ms  longest hold: wall ms / cpu ms  slowest small request ms");
for (const n of [10_000, 50_000, 200_000]) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const hold = holdMonitor();
  let done = false;
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, "--client", dev.url, dev.projectKey, String(n)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => child.on("exit", resolve)).then(() => (done = true));
  let slowest = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`${dev.url}/_dev/version`)).json();
    slowest = Math.max(slowest, performance.now() - t);
  }
  await exited;
  const worst = hold.stop();
  delay.disable();
  const result = JSON.parse(out);
  if (result.status !== 200) throw new Error(`ingest answered ${result.status}`);
  console.log(
    `${String(n).padEnd(8)} ${result.mb.toFixed(1).padEnd(5)} ${result.millis.toFixed(0).padEnd(10)} ${((result.millis / n) * 1000).toFixed(1).padEnd(12)} ${(delay.max / 1e6).toFixed(0).padEnd(18)} ${`${worst.wall.toFixed(0)} / ${worst.cpu.toFixed(0)}`.padEnd(31)} ${slowest.toFixed(0)}`,
  );
}
await dev.close();
