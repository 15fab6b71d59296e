import type { ResolvedOptions } from "../config/options.js";
import { Transport } from "../http/transport.js";
import type { HttpMethod } from "../http/sender.js";
import { type Logger, redact, safeLogger } from "../logger.js";
import { SchemaError } from "../protocol/schema.js";
import { EvaltraceError, ServiceError, ValidationError } from "./errors.js";

/** A service answer's JSON body. */
export type Body = Record<string, unknown> & { success?: boolean; data?: Record<string, unknown>; link?: string; deprecated?: boolean };

/** Escapes one segment of a request path. */
export const enc = encodeURIComponent;

/** The client's one way to the service: validation, transport, typed errors, deprecation notes. */
export class ClientHttp {
  private readonly transport: Transport;
  private readonly background: Transport;
  readonly logger: Logger;
  private readonly apiKey: string | undefined;
  private readonly warnedDeprecated = new Set<string>();

  constructor(o: ResolvedOptions, maxConnectRetries: number | undefined) {
    this.apiKey = o.apiKey;
    this.logger = safeLogger(o.logger, () => (o.apiKey ? [o.apiKey] : []));
    // Every client call is awaited: its retry waits must keep the process alive.
    this.transport = new Transport({ ...o, logger: this.logger, keepProcessAlive: true, maxConnectRetries });
    // Requests nobody awaits (a cached prompt's refresh): one attempt, never holding the process.
    this.background = new Transport({ ...o, logger: this.logger, maxRetries: 0, keepProcessAlive: false });
  }

  /** Runs `check` on the body (a spec rule broken: ValidationError, nothing sent), then sends. */
  async call(method: HttpMethod, path: string, body?: unknown, check?: (body: unknown) => unknown, inBackground = false): Promise<Body> {
    if (check) {
      try {
        check(body ?? {});
      } catch (err) {
        if (err instanceof SchemaError) throw new ValidationError(err.message);
        throw err;
      }
    }
    if (!this.apiKey) throw new EvaltraceError("configuration", "no API key: pass { apiKey } to new Client(), call configure({ apiKey }), or set EVALTRACE_API_KEY");
    const out = await (inBackground ? this.background : this.transport).send(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (!out.ok) {
      // A service that echoes the key back must not put it into our error.
      const secrets = [this.apiKey];
      // The error names the method and path; the transport's message names the whole address.
      const message = redact(out.message.replace(/^request to \S+ failed: /, "").replace(/^\S+ answered /, ""), secrets);
      const errorBody = out.body === undefined ? undefined : JSON.parse(redact(JSON.stringify(out.body), secrets));
      throw new ServiceError({ status: out.status, method, path, message, body: errorBody });
    }
    const res = (out.body ?? {}) as Body;
    if (res.deprecated === true && !this.warnedDeprecated.has(path.split("/").slice(0, 3).join("/"))) {
      this.warnedDeprecated.add(path.split("/").slice(0, 3).join("/"));
      this.logger.warn(`${method} ${path}: the service marks this endpoint as deprecated`);
    }
    return res;
  }

  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.background.close()]);
  }
}

/** A string field of an answer, or a ServiceError naming what is missing. */
export function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new ServiceError({ method: "?", path: what, message: `the response has no ${what}` });
  return v;
}
