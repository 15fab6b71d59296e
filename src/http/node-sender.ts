import type { IncomingMessage, RequestOptions } from "node:http";
import { nodeBuiltin } from "../util/node-builtin.js";
import type { RequestBody, Sender } from "./sender.js";

type HttpModule = typeof import("node:http");

/**
 * A sender on Node's own `http`/`https` modules with keep-alive pools: per request it costs less
 * CPU than undici's `request()` (measured in bench/: the export path is where our overhead
 * is), and it needs no dependency. Idle pooled connections do not keep the process alive and
 * are closed after {@link IDLE_MILLIS}; `close()` destroys every connection, in flight or idle.
 * `timeoutMillis` bounds the wait for each step of an answer (headers, then each chunk of the
 * body), like undici's `headersTimeout`/`bodyTimeout`.
 *
 * Each scheme's module and pool are made on its first request (`https` and the TLS stack it
 * brings cost some 5 ms to load, `http` as much: an app that only ever sends to one of them loads
 * only that one); `preload` loads the one of that URL now.
 */
export async function nodeSender(preload?: string): Promise<{ send: Sender; close: () => void }> {
  const pools = new Map<string, Promise<Pool>>();
  const agents: Pool["agent"][] = [];
  let closed = false;
  const poolOf = (protocol: string): Promise<Pool> => {
    let pool = pools.get(protocol);
    if (pool === undefined) {
      pool = nodeBuiltin<HttpModule>(protocol === "https:" ? "https" : "http").then((module) => {
        const agent = new module.Agent(AGENT_OPTIONS);
        agents.push(agent);
        if (closed) agent.destroy();
        return { module, agent };
      });
      pools.set(protocol, pool);
    }
    return pool;
  };
  if (preload !== undefined) await poolOf(new URL(preload).protocol);
  const send: Sender = async (url, init) => {
    const target = new URL(url);
    const { module, agent } = await poolOf(target.protocol);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...init.headers };
      if (init.body !== undefined) headers["content-length"] = byteLength(init.body);
      const request: RequestOptions = { method: init.method, headers, agent };
      const req = module.request(target, request, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
        res.on("aborted", () => reject(new Error("the connection closed before the whole answer arrived")));
      });
      req.setTimeout(init.timeoutMillis, () => req.destroy(new Error(`no response within ${init.timeoutMillis} ms`)));
      req.on("error", reject);
      req.end(init.body);
    });
  };
  const close = () => {
    closed = true;
    for (const agent of agents) agent.destroy();
  };
  return { send, close };
}

/** One scheme's module and its pool of connections. */
interface Pool {
  module: HttpModule;
  agent: InstanceType<HttpModule["Agent"]>;
}

/** Pooled connections per origin, as many as the export's concurrency could ever use. */
const MAX_SOCKETS = 32;
/** An idle pooled connection is closed after this long (servers often close theirs at 5 s). */
const IDLE_MILLIS = 4_000;
const AGENT_OPTIONS = { keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_MILLIS, scheduling: "lifo" as const };

function byteLength(body: RequestBody): number {
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength;
}

/** Node's header record with repeated headers joined, as `fetch` gives them. */
function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}
