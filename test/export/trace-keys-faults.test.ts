import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, type EvaluationOutcome, type FlushResult, evaluateTrace, flush, observe, shutdown, stats, updateCurrentTrace } from "../../src/index.js";
import { apiFor } from "../helpers/api.js";
import { type Fault, type FaultProxy, type ProxiedRequest, startFaultProxy } from "../helpers/fault-proxy.js";
import { configureForTest } from "../helpers/sdk.js";

/**
 * Per-trace API keys under faults. The service is two emulators (strict), one per project, each
 * keeping its state in a journal so that it can be killed and started again from it: `home`,
 * whose key the SDK is configured with, and `tenant`, whose key some traces are routed to with
 * `observe({ apiKey })` or `updateCurrentTrace({ apiKey })`. A fault proxy in front sends each
 * request to the project its key belongs to, so every trace is read back from its own project.
 */
type Project = "home" | "tenant";

class Service {
  readonly projects = {} as Record<Project, DevServer>;
  private readonly files: Record<Project, string> = { home: journalFile(), tenant: journalFile() };
  private ports: Record<Project, number> | undefined;
  proxy!: FaultProxy;

  static async start(fault: (n: number, req: ProxiedRequest, svc: Service) => Fault | undefined, options: { dropHeaders?: string[] } = {}): Promise<Service> {
    const svc = new Service();
    await svc.startProjects();
    for (const dev of Object.values(svc.projects)) {
      const made = await apiFor(dev)("POST", "/v1/metric-collections", { name: "answers", multiTurn: false });
      expect(made.status).toBe(200);
    }
    svc.proxy = await startFaultProxy(svc.projects.home.url, (n, req) => fault(n, req, svc), {
      ...options,
      upstreamFor: (req) => svc.projects[svc.projectOf(req)].url,
      afterStore: () => svc.onStored?.() ?? Promise.resolve(),
    });
    return svc;
  }

  /** Called between storing a `store-then-reset` request and dropping its answer. */
  onStored: (() => Promise<void>) | undefined;

  get homeKey(): string {
    return this.projects.home.projectKey;
  }

  get tenantKey(): string {
    return this.projects.tenant.projectKey;
  }

  projectOf(req: ProxiedRequest): Project {
    return req.headers.service_api_key === this.tenantKey ? "tenant" : "home";
  }

  /** Kills the whole service (both projects): connections in flight are cut, new ones refused. */
  async kill(): Promise<void> {
    await Promise.all([this.projects.home.close(), this.projects.tenant.close()]);
  }

  /** Starts both projects again from their journals, on the ports they had (same keys, same data). */
  async startProjects(): Promise<void> {
    for (const p of ["home", "tenant"] as const) {
      this.projects[p] = await startDevServer({ port: this.ports?.[p] ?? 0, dataFile: this.files[p] });
    }
    this.ports ??= { home: port(this.projects.home), tenant: port(this.projects.tenant) };
  }

  async close(): Promise<void> {
    await this.proxy?.close();
    for (const dev of Object.values(this.projects)) await dev.close().catch(() => {});
  }
}

const journalFile = () => join(mkdtempSync(join(tmpdir(), "evaltrace-keys-faults-")), "state.jsonl");
const port = (dev: DevServer) => Number(new URL(dev.url).port);

/** What a request is, for "the first of each kind": the three kinds a keyed trace makes. */
function kind(req: ProxiedRequest): "POST" | "PUT" | "evaluate" | undefined {
  if (req.method === "POST" && req.url === "/v1/traces") return "POST";
  if (req.method === "PUT" && req.url.startsWith("/v1/traces/")) return "PUT";
  if (req.method === "POST" && req.url.startsWith("/v1/evaluate/traces/")) return "evaluate";
  return undefined;
}

let svc: Service | undefined;
afterEach(async () => {
  await shutdown(0);
  await svc?.close();
  svc = undefined;
});

function configure(s: Service, options: { maxRetries?: number } = {}) {
  // Fast retries; batches wait for flush(), so every run makes the same requests.
  return configureForTest(s.proxy.url, s.homeKey, {
    initialRetryDelayMillis: 20,
    maxRetryDelayMillis: 100,
    maxRetries: options.maxRetries ?? 30,
    batch: { flushIntervalMillis: 3_600_000 },
  });
}

interface Run {
  /** Trace uuids by the project they were routed to. */
  traces: Record<Project, string[]>;
  /** The traces with a span (and tags) that ended after the trace was sent: late updates. */
  late: Record<Project, string>;
  /** What the app's own functions returned. */
  returned: unknown[];
  sent: FlushResult;
  done: FlushResult;
  evaluations: EvaluationOutcome[];
}

/**
 * An app run over both keys: per project two traces (one routed with `observe({ apiKey })`, one
 * with `updateCurrentTrace({ apiKey })` for the tenant), one of them with work left running after
 * its root returned (a late span, with `tags` a tags update too, each a PUT), then with
 * `evaluate` an offline evaluation of that trace.
 */
async function appRun(s: Service, options: { tags: boolean; evaluate: boolean }): Promise<Run> {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const background = observe({ type: "tool", name: "background" }, async () => {
    await gate;
    if (options.tags) updateCurrentTrace({ tags: ["late"] });
    return "background done";
  });
  const running: Promise<string>[] = [];
  const body = async (q: string, how: { late?: boolean; route?: string } = {}) => {
    if (how.route) updateCurrentTrace({ apiKey: how.route });
    if (how.late) running.push(background());
    return { answer: `re: ${q}`, trace: currentTraceUuid()! };
  };
  const homeTurn = observe({ type: "agent", name: "turn" }, body);
  const tenantTurn = observe({ type: "agent", name: "turn", apiKey: s.tenantKey }, body);
  const h1 = await homeTurn("h1", { late: true });
  const t1 = await tenantTurn("t1", { late: true });
  const h2 = await homeTurn("h2");
  const t2 = await homeTurn("t2", { route: s.tenantKey });
  const sent = await flush(60_000);
  release();
  const returned: unknown[] = [h1.answer, t1.answer, h2.answer, t2.answer, ...(await Promise.all(running))];
  const evaluations = options.evaluate
    ? await Promise.all([evaluateTrace(h1.trace, { metricCollection: "answers" }), evaluateTrace(t1.trace, { metricCollection: "answers" })])
    : [];
  const done = await flush(60_000);
  return { traces: { home: [h1.trace, h2.trace], tenant: [t1.trace, t2.trace] }, late: { home: h1.trace, tenant: t1.trace }, returned, sent, done, evaluations };
}

const nothingThrew = (run: Run) => expect(run.returned).toEqual(["re: h1", "re: t1", "re: h2", "re: t2", "background done", "background done"]);
const sorted = (a: string[]) => [...a].sort();

/** Each project holds exactly its own traces, each whole and once: late span and tags once, one evaluation job. */
function expectExactlyOnce(s: Service, run: Run, options: { tags: boolean; evaluate: boolean }): void {
  for (const p of ["home", "tenant"] as const) {
    const state = s.projects[p].state;
    expect(sorted(Object.keys(state.traces)), p).toEqual(sorted(run.traces[p]));
    for (const uuid of run.traces[p]) {
      const trace = state.traces[uuid]!;
      const late = uuid === run.late[p];
      expect(sorted(trace.spans.map((x) => String(x.name))), `${p} ${uuid}`).toEqual(late ? ["background", "turn"] : ["turn"]);
      expect(trace.fields.tags, `${p} ${uuid}`).toEqual(late && options.tags ? ["late"] : undefined);
    }
    const jobs = state.jobs.filter((j) => j.trigger === "offline").map((j) => `${j.target} ${j.targetId}`);
    expect(jobs, p).toEqual(options.evaluate ? [`trace ${run.late[p]}`] : []);
  }
  expect(run.sent).toMatchObject({ ok: true, delivered: 4, notDelivered: [], pending: [] });
  expect(run.done).toMatchObject({ ok: true, notDelivered: [], pending: [] });
  expect(run.evaluations.map((e) => e.status)).toEqual(options.evaluate ? ["delivered", "delivered"] : []);
  // Per late trace: its tags and its span are two updates (tags set before the span ended).
  expect(stats()).toMatchObject({
    tracesDelivered: 4,
    tracesFailed: 0,
    tracesDropped: 0,
    updatesDelivered: options.tags ? 4 : 2,
    updatesFailed: 0,
    evaluationsDelivered: options.evaluate ? 2 : 0,
    evaluationsFailed: 0,
    openTraces: 0,
    queued: 0,
  });
  nothingThrew(run);
}

// On Bun, fetch itself re-sends a request whose reused connection was reset, before our transport
// sees a failure (see lost-answers.test.ts): such a re-send is not one of our retries, and against
// a service that ignores Idempotency-Key its 409 answers what looks like a first attempt.
const onBun = "Bun" in globalThis;

describe("per-trace API keys, losing the first answer of each request", () => {
  it("with a service that honours Idempotency-Key: per project, every trace, late update and evaluation exactly once", async () => {
    const lost = new Set<string>();
    svc = await Service.start((_n, req, s) => {
      const k = kind(req);
      const what = `${s.projectOf(req)} ${k}`;
      if (k === undefined || lost.has(what)) return undefined;
      lost.add(what);
      return "store-then-reset";
    });
    configure(svc);
    const options = { tags: true, evaluate: true };
    const run = await appRun(svc, options);
    // The first answer of each kind, for each key, was lost after the service stored it.
    expect(sorted([...lost])).toEqual(["home POST", "home PUT", "home evaluate", "tenant POST", "tenant PUT", "tenant evaluate"].sort());
    expectExactlyOnce(svc, run, options);
    // One retry per lost answer; on Bun, fewer (some are re-sent by fetch itself).
    if (onBun) expect(stats().retries).toBeGreaterThanOrEqual(3);
    else expect(stats().retries).toBe(6);
  });

  // Without the header, only what the service can recognise as stored is exactly once: a trace
  // (the same body again is a no-op) and a span (409, "already exists"). A tags-only update or an
  // evaluation sent again is applied again: nothing a client can do about that but send the header.
  it.skipIf(onBun)("with a service that ignores the header: a retried POST is a no-op, a retried span PUT's 409 counts as delivered", async () => {
    const lost = new Set<string>();
    svc = await Service.start(
      (_n, req, s) => {
        const k = kind(req);
        const what = `${s.projectOf(req)} ${k}`;
        if (k === undefined || lost.has(what)) return undefined;
        lost.add(what);
        return "store-then-reset";
      },
      { dropHeaders: ["idempotency-key"] },
    );
    const logger = configure(svc);
    const options = { tags: false, evaluate: false };
    const run = await appRun(svc, options);
    expect(sorted([...lost])).toEqual(["home POST", "home PUT", "tenant POST", "tenant PUT"].sort());
    expectExactlyOnce(svc, run, options);
    expect(stats().retries).toBe(4);
    expect(logger.lines.filter((l) => l.startsWith("error:"))).toEqual([]);
  });
});

describe("per-trace API keys, a 5xx on one key's requests while the other key's succeed", () => {
  it("transient: the tenant's POST, PUTs and evaluation each meet two 503s, then go through; nothing doubled", async () => {
    const attempts = new Map<string, number>();
    svc = await Service.start((_n, req, s) => {
      if (kind(req) === undefined || s.projectOf(req) !== "tenant") return undefined;
      // Each logical request once per attempt: every attempt carries the same Idempotency-Key.
      const id = String(req.headers["idempotency-key"]);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      return n <= 2 ? "503" : undefined;
    });
    configure(svc);
    const options = { tags: true, evaluate: true };
    const run = await appRun(svc, options);
    expectExactlyOnce(svc, run, options);
    // At least a POST, two PUTs and an evaluation of the tenant's; each retried twice, and
    // nothing else retried: the home key's requests never waited for the tenant's.
    expect(attempts.size).toBeGreaterThanOrEqual(4);
    expect(svc.proxy.counts.faults["503"]).toBe(2 * attempts.size);
    expect(stats().retries).toBe(2 * attempts.size);
  });

  it("persistent on the tenant's POST: its traces are given up and reported, the home key's delivered whole", async () => {
    svc = await Service.start((_n, req, s) => (kind(req) === "POST" && s.projectOf(req) === "tenant" ? "500" : undefined));
    const logger = configure(svc, { maxRetries: 2 });
    const run = await appRun(svc, { tags: true, evaluate: true });
    nothingThrew(run);
    expect(run.sent).toMatchObject({ ok: false, delivered: 2, pending: [] });
    expect(sorted(run.sent.notDelivered)).toEqual(sorted(run.traces.tenant));
    const home = svc.projects.home.state;
    expect(sorted(Object.keys(home.traces))).toEqual(sorted(run.traces.home));
    expect(sorted(home.traces[run.late.home]!.spans.map((x) => String(x.name)))).toEqual(["background", "turn"]);
    expect(home.traces[run.late.home]!.fields.tags).toEqual(["late"]);
    expect(Object.keys(svc.projects.tenant.state.traces)).toEqual([]);
    // The tenant's trace was not delivered: its evaluation is not sent (it would find nothing).
    expect(run.evaluations.map((e) => e.status)).toEqual(["delivered", "failed"]);
    expect(home.jobs.filter((j) => j.trigger === "offline")).toHaveLength(1);
    expect(svc.projects.tenant.state.jobs).toEqual([]);
    expect(stats()).toMatchObject({
      tracesDelivered: 2,
      tracesFailed: 2,
      updatesDelivered: 2,
      updatesFailed: 0,
      evaluationsDelivered: 1,
      evaluationsFailed: 1,
      openTraces: 0,
    });
    expect(logger.lines.some((l) => l.startsWith("error:") && l.includes("2 trace(s) not delivered") && l.includes("500"))).toBe(true);
    const log = logger.lines.join("\n");
    for (const key of [svc.homeKey, svc.tenantKey]) expect(log).not.toContain(key);
  });

  it("persistent on the tenant's PUTs and evaluation: those are counted failed, the home key's delivered, nothing doubled", async () => {
    svc = await Service.start((_n, req, s) => {
      const k = kind(req);
      return (k === "PUT" || k === "evaluate") && s.projectOf(req) === "tenant" ? "500" : undefined;
    });
    const logger = configure(svc, { maxRetries: 2 });
    const run = await appRun(svc, { tags: true, evaluate: true });
    nothingThrew(run);
    expect(run.sent).toMatchObject({ ok: true, delivered: 4 });
    const [home, tenant] = [svc.projects.home.state, svc.projects.tenant.state];
    expect(sorted(Object.keys(home.traces))).toEqual(sorted(run.traces.home));
    expect(sorted(Object.keys(tenant.traces))).toEqual(sorted(run.traces.tenant));
    expect(sorted(home.traces[run.late.home]!.spans.map((x) => String(x.name)))).toEqual(["background", "turn"]);
    expect(home.traces[run.late.home]!.fields.tags).toEqual(["late"]);
    // The tenant's late span and tags never got in; its trace is there as first sent.
    expect(tenant.traces[run.late.tenant]!.spans.map((x) => String(x.name))).toEqual(["turn"]);
    expect(tenant.traces[run.late.tenant]!.fields.tags).toBeUndefined();
    expect(run.evaluations).toMatchObject([{ status: "delivered" }, { status: "failed", error: expect.stringContaining("500") }]);
    // The flush that waited for the failed updates reports the tenant's trace as not delivered.
    expect(run.done).toMatchObject({ ok: false, notDelivered: [run.late.tenant] });
    expect(home.jobs.filter((j) => j.trigger === "offline")).toHaveLength(1);
    expect(tenant.jobs).toEqual([]);
    expect(stats()).toMatchObject({ tracesDelivered: 4, tracesFailed: 0, updatesDelivered: 2, updatesFailed: 2, evaluationsDelivered: 1, evaluationsFailed: 1 });
    expect(logger.lines.filter((l) => l.startsWith("error:") && l.includes(`late update of trace ${run.late.tenant} not delivered`))).toHaveLength(2);
  });
});

describe("per-trace API keys, the service killed mid-export and started again", () => {
  it("killed between storing the tenant's first POST, PUT and evaluation and answering them: each lands once, per project", async () => {
    const killed = new Set<string>();
    let outages = 0;
    /** Requests that arrived while the service was down, per outage. */
    const arrivedDown: number[] = [];
    let down = false;
    let restarting: Promise<void> | undefined;
    svc = await Service.start((_n, req, s) => {
      if (down) {
        const n = ++arrivedDown[outages - 1]!;
        // Two requests (retries) have met the dead service: it comes back.
        if (n === 2) {
          restarting = s.startProjects().then(() => {
            down = false;
          });
        }
        return undefined;
      }
      const k = kind(req);
      if (k === undefined || s.projectOf(req) !== "tenant" || killed.has(k)) return undefined;
      killed.add(k);
      return "store-then-reset";
    });
    svc.onStored = async () => {
      await svc!.kill();
      // Counted from here: what arrived while it was being killed may have got through.
      outages++;
      arrivedDown.push(0);
      down = true;
    };
    configure(svc);
    const options = { tags: true, evaluate: true };
    const run = await appRun(svc, options);
    await restarting;
    // What landed first (read back from the projects started again from their journals), then
    // that the faults happened as planned: a failure then says whether anything was lost.
    expectExactlyOnce(svc, run, options);
    expect(sorted([...killed])).toEqual(["POST", "PUT", "evaluate"]);
    expect(outages).toBe(3);
    for (const n of arrivedDown) expect(n).toBeGreaterThanOrEqual(2);
  });
});
