import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../helpers/child.js";
import { runsHere, runtimeName } from "../helpers/skips.js";

// The packages as a user installs them (issue 41): each packed with `npm pack` (its prepack
// script included), then installed from the tarballs into a fresh app, with npm's cache
// (npm ci filled it) or the registry for @opentelemetry/api and the hooks' packages.
// The apps below are Node processes started with Node's flags (--import, --input-type).
const onNode = runsHere(process.versions.bun === undefined, "test/build/packages.test.ts", `the packed packages are installed and run as a Node app (this is ${runtimeName}); Node 20, 22 and 24 run it`);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "evaltrace-packages-"));
const app = join(work, "app");
const tarballs: Record<string, string> = {};

/** Every file under `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

/** The bytes of every file under `dir` (what `du --apparent-size` counts). */
function bytes(dir: string): number {
  return files(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

function install(...specs: string[]): void {
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], { cwd: app, stdio: "pipe" });
}

function node(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, args, { cwd: app, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } });
}

beforeAll(() => {
  if (!onNode) return;
  for (const dir of ["evaltrace", "auto", "dev"]) {
    const out = execFileSync(npm, ["pack", "--json", "--pack-destination", work], { cwd: join(packageRoot, "packages", dir), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const [{ name, filename }] = JSON.parse(out) as [{ name: string; filename: string }];
    tarballs[name] = join(work, filename);
  }
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "fresh-app", version: "1.0.0", private: true, type: "module" }));
  install(tarballs.evaltrace!);
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

// The dev kit's own names and the viewer's page: none of them may be in a production install.
const devKitCode = /startDevServer|startFakeOpenAI|startFakeAnthropic|evaltrace dev: the local emulator|Content-Security-Policy|\/_dev\/view\//;

describe.skipIf(!onNode)("a fresh app that installs only evaltrace (npm pack, then npm install of the tarball)", () => {
  it("gets evaltrace, @opentelemetry/api (its peer) and @opentelemetry/context-async-hooks, and nothing else", () => {
    const top = readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith("."));
    const scoped = top.flatMap((n) => (n.startsWith("@") ? readdirSync(join(app, "node_modules", n)).map((m) => `${n}/${m}`) : [n]));
    expect(scoped.sort()).toEqual(["@opentelemetry/api", "@opentelemetry/context-async-hooks", "evaltrace"]);
  });

  it("holds at most 4 MB (bytes of every file under node_modules)", () => {
    const total = bytes(join(app, "node_modules"));
    console.log(`fresh app, evaltrace only: ${(total / 1e6).toFixed(2)} MB in node_modules (evaltrace ${(bytes(join(app, "node_modules", "evaltrace")) / 1e6).toFixed(2)} MB)`);
    expect(total).toBeLessThanOrEqual(4_000_000);
  });

  it("carries no emulator, viewer or fake-server code, and no source maps", () => {
    const dir = join(app, "node_modules", "evaltrace");
    const shipped = files(dir);
    expect(shipped.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(shipped.filter((f) => /\.(c?js|mjs)$/.test(f) && devKitCode.test(readFileSync(join(dir, f), "utf8")))).toEqual([]);
  });

  it("traces with import and with require", () => {
    const program = (load: string) => `${load}
const f = observe({ type: "llm", model: "m" }, (q) => "re: " + q);
console.log(f("hi"));`;
    for (const [args, load] of [
      [["--input-type=module", "-e"], `import { observe, configure } from "evaltrace"; configure({ enabled: false });`],
      [["-e"], `const { observe, configure } = require("evaltrace"); configure({ enabled: false });`],
    ] as const) {
      const run = node([...args, program(load)]);
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("re: hi\n");
    }
  });

  it("`evaltrace dev` says to install the dev kit, and exits 1", () => {
    const run = node([join(app, "node_modules", "evaltrace", "bin", "evaltrace.mjs"), "dev", "--port", "0"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe("evaltrace dev: the emulator is in the dev kit, which is not installed here: npm install --save-dev @evaltrace/dev (or run it once with npx @evaltrace/dev)\n");
  });

  it("`--import evaltrace/auto` without @evaltrace/auto: one line naming it, and the app runs untraced", () => {
    const run = node(["--import", "evaltrace/auto", "--input-type=module", "-e", `console.log("app ran")`], { EVALTRACE_API_KEY: "svc_local_proj_x", EVALTRACE_BASE_URL: "http://127.0.0.1:9" });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("app ran\n");
    expect(run.stderr).toContain("zero-code tracing needs @evaltrace/auto, which is not installed: npm install @evaltrace/auto");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe.skipIf(!onNode)("the same app with zero-code (@evaltrace/auto) and the dev kit (@evaltrace/dev)", () => {
  beforeAll(() => {
    if (onNode) install(tarballs["@evaltrace/auto"]!, tarballs["@evaltrace/dev"]!);
  }, 180_000);

  it("instruments under --import evaltrace/auto, and instrument() from evaltrace/instrument turns libraries on", () => {
    const run = node(["--import", "evaltrace/auto", "--input-type=module", "-e", `import { instrument } from "evaltrace/instrument"; console.log(instrument({ langchain: false }).join(","));`], {
      EVALTRACE_API_KEY: "svc_local_proj_x",
      EVALTRACE_BASE_URL: "http://127.0.0.1:9",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("openai,anthropic,google-genai,openai-agents,mcp,ai,bedrock,claude-agent-sdk,llamaindex\n");
  });

  it("`evaltrace dev` and the dev kit's own `evaltrace-dev` (what `npx @evaltrace/dev` runs) both answer with the dev command's usage", () => {
    for (const bin of [join(app, "node_modules", "evaltrace", "bin", "evaltrace.mjs"), join(app, "node_modules", "@evaltrace", "dev", "bin", "evaltrace-dev.mjs")]) {
      const run = node([bin, ...(bin.endsWith("evaltrace.mjs") ? ["dev"] : []), "--help"]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: evaltrace dev \[options\]/);
    }
  });

  it("runs the emulator from @evaltrace/dev and the fakes from @evaltrace/dev/fakes", () => {
    const run = node([
      "--input-type=module",
      "-e",
      `import { startDevServer } from "@evaltrace/dev"; import { startFakeOpenAI } from "@evaltrace/dev/fakes";
const dev = await startDevServer({ port: 0 }); const fake = await startFakeOpenAI();
console.log(typeof dev.projectKey, typeof fake.url); await fake.close(); await dev.close();`,
    ]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("string string\n");
    console.log(`fresh app with @evaltrace/auto and @evaltrace/dev: ${(bytes(join(app, "node_modules")) / 1e6).toFixed(2)} MB in node_modules`);
  });

  it("the README's quick start, followed as written (issue 48): `evaltrace dev` from the installed dev kit, its banner's export line, app.mjs from the README; the trace is stored and nothing is on stderr", async () => {
    const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
    const start = readme.indexOf("## Quick start");
    const block = /```js\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
    expect(block, "the quick start's app.mjs block").toContain('name: "support-bot"');
    writeFileSync(join(app, "app.mjs"), block!);
    // `npx evaltrace dev`, on a free port (the README's default port may be taken here).
    const dev = spawn(process.execPath, [join(app, "node_modules", "evaltrace", "bin", "evaltrace.mjs"), "dev", "--port", "0", "--quiet"], { cwd: app, env: { PATH: process.env.PATH ?? "" } });
    try {
      let banner = "";
      const exported = await new Promise<string>((resolve, reject) => {
        dev.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          banner += chunk;
          const line = /^\s*export (EVALTRACE_BASE_URL=\S+ EVALTRACE_API_KEY=\S+)$/m.exec(banner)?.[1];
          if (line) resolve(line);
        });
        dev.on("exit", () => reject(new Error(`evaltrace dev exited: ${banner}`)));
      });
      const env = Object.fromEntries(exported.split(" ").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
      const run = spawnSync(process.execPath, ["app.mjs"], { cwd: app, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("Orders ship within 2 days. (found for: When will my order ship?)\n");
      const traces = (await (await fetch(`${env.EVALTRACE_BASE_URL}/_dev/traces`)).json()) as { name?: string }[];
      expect(traces.map((t) => t.name)).toContain("support-bot");
    } finally {
      dev.kill("SIGINT");
    }
  });
});
