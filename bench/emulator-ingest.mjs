// node bench/emulator-ingest.mjs (after npm run build): how long the emulator takes to ingest one
// trace whose spans form a chain (the worst case of the parent check), and how long it holds its
// event loop meanwhile, with a small request sent over and over beside it.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startDevServer } from "../dist/devserver.js";

function chainedTrace(uuid, spans) {
  const start = Date.parse("2026-06-01T10:00:00.000Z");
  const list = Array.from({ length: spans }, (_, i) => ({
    uuid: `${uuid}-s${i}`,
    name: "step",
    startTime: new Date(start + i).toISOString(),
    endTime: new Date(start + spans + 1).toISOString(),
    ...(i > 0 ? { parentUuid: `${uuid}-s${i - 1}` } : {}),
  }));
  return JSON.stringify({ uuid, startTime: new Date(start).toISOString(), endTime: new Date(start + spans + 1).toISOString(), baseSpans: list });
}

const dev = await startDevServer({ port: 0, maxBodyBytes: 64 * 1024 * 1024, log: () => {} });
const post = (body) => fetch(`${dev.url}/v1/traces`, { method: "POST", headers: { SERVICE_API_KEY: dev.projectKey, "content-type": "application/json" }, body });
console.log("spans    MB    ingest ms  ms/1k spans  max loop delay ms  slowest small request ms");
for (const n of [10_000, 50_000, 200_000]) {
  const body = chainedTrace(`chain-${n}`, n);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let done = false;
  const started = performance.now();
  const big = post(body).then((r) => {
    done = true;
    return r.status;
  });
  let slowest = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`${dev.url}/_dev/version`)).json();
    slowest = Math.max(slowest, performance.now() - t);
  }
  const status = await big;
  const millis = performance.now() - started;
  delay.disable();
  if (status !== 200) throw new Error(`ingest answered ${status}`);
  console.log(
    `${String(n).padEnd(8)} ${(body.length / 1e6).toFixed(1).padEnd(5)} ${millis.toFixed(0).padEnd(10)} ${((millis / n) * 1000).toFixed(1).padEnd(12)} ${(delay.max / 1e6).toFixed(0).padEnd(18)} ${slowest.toFixed(0)}`,
  );
}
await dev.close();
