import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2Session } from "node:http2";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";

/** The first bytes of every HTTP/2 connection made with prior knowledge (RFC 9113, 3.4). */
const PREFACE = "PRI * HTTP/2.0";

/**
 * A listener that speaks HTTP/1.1 and cleartext HTTP/2 (h2c with prior knowledge) on one port, for
 * a fake whose SDK talks HTTP/2 (the AWS SDK's Bedrock Runtime client uses `NodeHttp2Handler`):
 * each connection's first bytes decide which server gets it. HTTP/2 requests reach `handler`
 * through node's compatibility API, whose request and response read like HTTP/1's.
 */
export function dualProtocolServer(http1: Server, handler: (req: IncomingMessage, res: ServerResponse) => void): { server: NetServer; closeAll(): void } {
  const h2 = createHttp2Server((req, res) => handler(req as unknown as IncomingMessage, res as unknown as ServerResponse));
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  h2.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      // No HTTP/1.1 method starts with "PRI": three bytes tell them apart.
      const isHttp2 = first.length >= 3 && PREFACE.startsWith(first.subarray(0, Math.min(PREFACE.length, first.length)).toString("latin1"));
      (isHttp2 ? h2 : http1).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  });
  return {
    server,
    closeAll() {
      for (const session of sessions) session.destroy();
      http1.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    },
  };
}
