import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0, headersTimeoutMillis: 1_000, requestTimeoutMillis: 2_000 });
});
afterAll(() => dev.close());

/** Opens a connection, sends `first`, then one more byte sequence every 100 ms; resolves with what the server did and when. */
function trickle(first: string, next: () => string): Promise<{ millis: number; received: string }> {
  const url = new URL(dev.url);
  return new Promise((resolve) => {
    const started = performance.now();
    let received = "";
    const socket = connect(Number(url.port), url.hostname, () => socket.write(first));
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(next());
    }, 100);
    socket.on("data", (d) => (received += d.toString()));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ millis: performance.now() - started, received });
    });
  });
}

it("closes a connection whose headers trickle in past headersTimeoutMillis (408), instead of holding it for minutes", async () => {
  let n = 0;
  const r = await trickle(`GET /v1/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n`, () => `X-Slow-${n++}: a\r\n`);
  expect(r.millis).toBeLessThan(5_000);
  expect(r.received).toMatch(/^HTTP\/1\.1 408/);
});

it("closes a connection whose body trickles in past requestTimeoutMillis", async () => {
  const r = await trickle(
    `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nSERVICE_API_KEY: ${dev.projectKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    () => " ",
  );
  expect(r.millis).toBeLessThan(6_000);
});
