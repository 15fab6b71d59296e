// What one HTTP POST costs the client's CPU, by body size (issue 46: why a batch goes at a
// request's worth of spans): node:http with a keep-alive agent against a plain server in another
// process, 300 requests per size after 50 uncounted ones.
//   node bench/post-cost.mjs
import http from "node:http";
import { startReceiver } from "./common.mjs";

const receiver = await startReceiver();
const url = new URL(receiver.url);
const agent = new http.Agent({ keepAlive: true });
const post = (body) =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: "/s/post-cost/x", method: "POST", agent, headers: { "content-type": "application/octet-stream", "content-length": body.length } }, (res) => {
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end(body);
  });
for (const size of [1_000, 20_000, 100_000, 500_000]) {
  const body = Buffer.alloc(size, 0x61);
  for (let i = 0; i < 50; i++) await post(body);
  const N = 300;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await post(body);
  const c = process.cpuUsage(c0);
  console.log(`${size} bytes: ${((c.user + c.system) / N).toFixed(0)} µs CPU per request (user ${(c.user / N).toFixed(0)}, system ${(c.system / N).toFixed(0)}), ${(((performance.now() - t0) * 1000) / N).toFixed(0)} µs wall`);
}
agent.destroy();
await receiver.stop();
