import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DoctorReport, doctor } from "../../src/doctor/index.js";
import { loadedBuild, olderNode } from "../../src/doctor/check-module-format.js";
import { usesRegisteredGlobals } from "../../src/doctor/otel-api-version.js";

const of = (report: DoctorReport, check: string) => report.findings.filter((f) => f.check === check);

/** A directory tree: `{ "a/package.json": {...} }` written under a fresh temporary directory. */
function tree(files: Record<string, object>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "evaltrace-doctor-")));
  for (const [path, json] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), JSON.stringify(json));
  }
  return root;
}

const pkg = (name: string, version: string) => ({ name, version });
/** Only the local checks: a base URL with nothing behind it, answered at once. */
const local = { baseUrl: "http://127.0.0.1:9", timeoutMillis: 200 };

describe("doctor(): duplicate copies in the app's node_modules", () => {
  it("one @opentelemetry/api, copied twice at one version: ok, no warning", async () => {
    const app = tree({
      "package.json": { name: "app" },
      "node_modules/@opentelemetry/api/package.json": pkg("@opentelemetry/api", "1.9.0"),
      "node_modules/lib/node_modules/@opentelemetry/api/package.json": pkg("@opentelemetry/api", "1.9.0"),
    });
    const found = of(await doctor({ ...local, cwd: app }), "duplicates");
    expect(found).toContainEqual(expect.objectContaining({ ok: true, message: "one version of @opentelemetry/api installed (1.9.0, 2 copies)" }));
    expect(found.filter((f) => !f.ok)).toEqual([]);
  });

  it("two @opentelemetry/api versions (hoisted 1.9.0, nested 1.4.1, and a pnpm store's 1.3.0): a warning listing each version and where, with the fix", async () => {
    const app = tree({
      "package.json": { name: "app" },
      "node_modules/@opentelemetry/api/package.json": pkg("@opentelemetry/api", "1.9.0"),
      "node_modules/@vendor/sdk/node_modules/@opentelemetry/api/package.json": pkg("@opentelemetry/api", "1.4.1"),
      "node_modules/.pnpm/@opentelemetry+api@1.3.0/node_modules/@opentelemetry/api/package.json": pkg("@opentelemetry/api", "1.3.0"),
    });
    const warning = of(await doctor({ ...local, cwd: app }), "duplicates").find((f) => !f.ok)!;
    expect(warning).toMatchObject({ severity: "warning", fix: expect.stringContaining("npm ls @opentelemetry/api") });
    expect(warning.message).toMatch(/^3 versions of @opentelemetry\/api are installed/);
    expect(warning.message).toContain("1.9.0 at node_modules/@opentelemetry/api");
    expect(warning.message).toContain("1.4.1 at node_modules/@vendor/sdk/node_modules/@opentelemetry/api");
    expect(warning.message).toContain("1.3.0 at node_modules/.pnpm/@opentelemetry+api@1.3.0/node_modules/@opentelemetry/api");
  });

  it("two evaltrace versions: a warning that each keeps its own configuration and queue", async () => {
    const app = tree({
      "package.json": { name: "app" },
      "node_modules/evaltrace/package.json": pkg("evaltrace", "0.1.0"),
      "node_modules/plugin/node_modules/evaltrace/package.json": pkg("evaltrace", "0.0.9"),
    });
    const warning = of(await doctor({ ...local, cwd: app }), "duplicates").find((f) => !f.ok)!;
    expect(warning).toMatchObject({ severity: "warning", message: expect.stringContaining("2 versions of evaltrace are installed") });
    expect(warning.message).toContain("configure() in one does not reach the other");
  });

  it("OpenTelemetry's globals registered by an API copy ours cannot use: an error in the app", async () => {
    const key = Symbol.for("opentelemetry.js.api.1");
    const global = (globalThis as unknown as Record<symbol, { version: string }>)[key];
    const app = tree({ "package.json": { name: "app" } });
    // The registering copy's version as an older API would have written it.
    const saved = global?.version;
    const holder = global ?? ((globalThis as unknown as Record<symbol, { version: string }>)[key] = { version: "" });
    holder.version = "1.0.0";
    try {
      const found = of(await doctor({ ...local, cwd: app }), "duplicates");
      expect(found).toContainEqual(expect.objectContaining({ ok: false, severity: "error", message: expect.stringContaining("registered by @opentelemetry/api 1.0.0") }));
    } finally {
      if (saved === undefined) delete (globalThis as unknown as Record<symbol, unknown>)[key];
      else holder.version = saved;
    }
  });

  it("a second evaltrace version loaded in the process: a warning", async () => {
    const key = Symbol.for("evaltrace.registry");
    const g = globalThis as unknown as Record<symbol, unknown>;
    const saved = Object.getOwnPropertyDescriptor(g, key);
    Object.defineProperty(g, key, { value: { version: "0.0.1" }, configurable: true });
    try {
      const found = of(await doctor({ ...local, cwd: tree({ "package.json": { name: "app" } }) }), "duplicates");
      expect(found).toContainEqual(expect.objectContaining({ ok: false, severity: "warning", message: expect.stringContaining("two versions of evaltrace are loaded in this process (0.0.1 and") }));
    } finally {
      if (saved) Object.defineProperty(g, key, saved);
      else delete g[key];
    }
  });

  it("usesRegisteredGlobals follows @opentelemetry/api's rule: same major, not newer minor than the registered copy", () => {
    expect(usesRegisteredGlobals("1.9.0", "1.9.1")).toBe(true);
    expect(usesRegisteredGlobals("1.4.0", "1.9.0")).toBe(true);
    expect(usesRegisteredGlobals("1.9.0", "1.4.0")).toBe(false);
    expect(usesRegisteredGlobals("1.9.0", "2.0.0")).toBe(false);
    expect(usesRegisteredGlobals("1.9.0-rc.1", "1.9.0")).toBe(false);
  });
});

describe("doctor(): installed libraries, from the app's directory", () => {
  it("openai and @langchain/core installed, zero-code off: a note (not a failure) naming them, with --import evaltrace/auto as the fix", async () => {
    const app = tree({
      "package.json": { name: "app" },
      "node_modules/openai/package.json": pkg("openai", "6.1.0"),
      "node_modules/@langchain/core/package.json": pkg("@langchain/core", "1.0.0"),
    });
    const report = await doctor({ ...local, cwd: app });
    expect(of(report, "integrations")).toEqual([
      expect.objectContaining({
        ok: false,
        severity: "info",
        message: expect.stringContaining("installed and not instrumented: openai (openai 6.1.0), langchain (@langchain/core 1.0.0)"),
        fix: expect.stringContaining("node --import evaltrace/auto"),
      }),
    ]);
  });

  it("nothing instrumentable installed: ok", async () => {
    const report = await doctor({ ...local, cwd: tree({ "package.json": { name: "app" } }) });
    expect(of(report, "integrations")).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("no library evaltrace instruments is installed") })]);
  });
});

describe("doctor(): the module format", () => {
  it('"type": "module": ES modules, ok', async () => {
    const report = await doctor({ ...local, cwd: tree({ "package.json": { name: "app", type: "module" } }) });
    expect(of(report, "module-format")[0]).toMatchObject({ ok: true, message: expect.stringMatching(/^the app is ES modules \(package\.json has "type": "module"\)/) });
  });

  it('no "type" and a .mjs main: CommonJS, its main named as an ES module', async () => {
    const report = await doctor({ ...local, cwd: tree({ "package.json": { name: "app", main: "index.mjs" } }) });
    expect(of(report, "module-format")[0]).toMatchObject({ ok: true, message: expect.stringContaining('the app is CommonJS (package.json has no "type"; its "main" "index.mjs" is an ES module)') });
  });

  it("the nearest package.json above a subdirectory is the app's", async () => {
    const app = tree({ "package.json": { name: "app", type: "module" }, "src/.keep/x.json": {} });
    const report = await doctor({ ...local, cwd: join(app, "src") });
    expect(of(report, "module-format")[0]!.message).toContain('../package.json has "type": "module"');
  });

  it("Node older than 20.19 is flagged; the build is told from its file's extension", () => {
    expect(olderNode("20.18.3")).toBe(true);
    expect(olderNode("18.20.0")).toBe(true);
    expect(olderNode("20.19.0")).toBe(false);
    expect(olderNode("22.1.0")).toBe(false);
    expect(loadedBuild("/app/node_modules/evaltrace/dist/chunk-X.cjs")).toBe("CommonJS");
    expect(loadedBuild("/app/node_modules/evaltrace/dist/chunk-X.js")).toBe("ESM");
    expect(loadedBuild("/repo/src/doctor/check-module-format.ts")).toBe("source");
  });
});
