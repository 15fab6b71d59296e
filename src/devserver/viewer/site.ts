import type { IncomingMessage, ServerResponse } from "node:http";
import { presentedKey } from "../api.js";
import { HttpError } from "../http-error.js";
import { isProjectKey } from "../keys.js";
import { jsonOutcome, type Outcome } from "../outcome.js";
import { stringifyJsonSliced } from "../sliced-json.js";
import type { Commits } from "../store/commit.js";
import type { State } from "../store/store.js";
import type { TraceOrder } from "../store/trace-order.js";
import { TimeSlicer } from "../time-slicer.js";
import { ReadAccess } from "./access.js";
import { checkSameOrigin } from "./cross-site.js";
import type { ViewerApi } from "./api.js";
import type { ViewerEvents } from "./events.js";
import { viewerHtml } from "./page/html.js";
import { devRead } from "./read-api.js";

/** Path of the viewer's live updates (server-sent events). */
const EVENTS_PATH = "/_dev/events";

/** What {@link ViewerSite} needs. */
export interface ViewerSiteOptions {
  state: State;
  /** Trace uuids in arrival order. */
  order: TraceOrder;
  /** The store's write counter and eviction count. */
  commits: Pick<Commits, "version" | "evictedTraces">;
  clock: () => number;
  /** 403 for a `Host` header that is not a name of this emulator (DNS rebinding protection). */
  checkHost: (header: string | undefined) => void;
  /** Whether reads need the project key or the session of the one-time login link. */
  protectReads: boolean;
  /** Name of the authentication header, and whether only that spelling counts. */
  apiKeyHeader: string;
  strict: boolean;
  viewerApi: ViewerApi;
  events: ViewerEvents;
  log: (line: string) => void;
}

/**
 * The read site: the viewer page, its data (`/_dev/view/*`), its live updates (`/_dev/events`)
 * and the read API (`/_dev/<what>`). Every request passes the Host check (DNS rebinding), the
 * cross-site check (another site's page may not read, nor time a read) and,
 * when reads are protected, needs the project key or the viewer session; `/?login=<token>`
 * spends the one-time login link for that session.
 */
export class ViewerSite {
  private readonly access = new ReadAccess();

  constructor(private readonly o: ViewerSiteOptions) {}

  /** Whether `path` is the site's (the page and `/_dev/*`); every other path is the API's. */
  static serves(path: string): boolean {
    return path === "/" || path === "/index.html" || path.startsWith("/_dev/");
  }

  /** The one-time link that opens the viewer when reads are protected and it was not used yet. */
  loginUrl(baseUrl: string): string | undefined {
    return this.o.protectReads && this.access.pendingLogin ? `${baseUrl}/?login=${this.access.pendingLogin}` : undefined;
  }

  /**
   * Answers a request for the site; undefined when it opened the live-update stream on `res`,
   * which stays open and is answered there.
   */
  async serve(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams, note: (line: string) => void): Promise<Outcome | undefined> {
    if (method !== "GET") throw new HttpError(405, `${method} is not allowed on ${path}`, { allow: "GET, HEAD" });
    if (path === EVENTS_PATH) {
      // The viewer's live updates: a stream that stays open, after the same checks as any read.
      this.o.checkHost(req.headers.host);
      checkSameOrigin(req.headers, false);
      this.checkAccess(req, note);
      this.o.events.attach(req, res, { version: this.o.commits.version, traces: this.o.order.size });
      this.o.log(`GET ${EVENTS_PATH} 200 (live updates; ${this.o.events.size} open)`);
      return undefined;
    }
    return this.read(req, path, query, note);
  }

  /** The viewer and `/_dev/*`: Host check, then (beyond loopback) the key or the viewer session. */
  private async read(req: IncomingMessage, path: string, query: URLSearchParams, note: (line: string) => void): Promise<Outcome> {
    const { state, order, commits } = this.o;
    this.o.checkHost(req.headers.host);
    checkSameOrigin(req.headers, path === "/" || path === "/index.html");
    const login = query.get("login");
    if (path === "/" && login !== null && this.o.protectReads) {
      return { status: 302, text: "", headers: { "set-cookie": this.access.login(login), location: "/", "content-type": "text/plain" }, applied: false };
    }
    this.checkAccess(req, note);
    if (path.startsWith("/_dev/view/")) {
      const view = await this.o.viewerApi.read(path, query, commits.version);
      return { status: 200, text: JSON.stringify(view.body), headers: view.nextCursor ? { "x-next-cursor": view.nextCursor } : {}, applied: false };
    }
    if (path === "/" || path === "/index.html") return { status: 200, text: viewerHtml, headers: { "content-type": "text/html; charset=utf-8" }, applied: false };
    if (path === "/_dev/version") return jsonOutcome(200, { version: commits.version, traces: order.size, evictedTraces: commits.evictedTraces });
    const slicer = new TimeSlicer();
    const read = await devRead(state, order, path, query, slicer);
    const text = await stringifyJsonSliced(read.body, slicer);
    return { status: 200, text, headers: read.nextCursor ? { "x-next-cursor": read.nextCursor } : {}, applied: false };
  }

  /** 401 when reads are protected and the request has neither the viewer session nor a project key. */
  private checkAccess(req: IncomingMessage, note: (line: string) => void): void {
    if (!this.o.protectReads) return;
    const { state, clock, apiKeyHeader, strict } = this.o;
    this.access.check(req.headers.cookie, presentedKey(req, apiKeyHeader, strict, note), (value) => isProjectKey(state, value, clock()));
  }
}
