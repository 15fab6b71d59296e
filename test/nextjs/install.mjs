#!/usr/bin/env node
// Installs test/nextjs/app (a Next.js app: next, react, openai, @vercel/otel) into its own
// node_modules (git-ignored) with `npm ci`, when its node_modules does not match its lock, and
// copies the freshly built packages/evaltrace (package.json, dist, bin) into
// app/node_modules/evaltrace (and packages/auto's manifest into @evaltrace/auto), as
// `npm install evaltrace @evaltrace/auto` would lay them out. A copy, not a link:
// Next's bundlers resolve a symlink to its real path, outside the app, and then treat it as
// source of their own.
//   node test/nextjs/install.mjs
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("app", import.meta.url));
const root = join(dir, "..", "..", "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Whether node_modules matches the lock (npm writes its own copy of the lock there after an install). */
export function installed() {
  const hidden = join(dir, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return false;
  const want = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")).packages;
  const have = JSON.parse(readFileSync(hidden, "utf8")).packages;
  return Object.entries(want).every(([k, v]) => k === "" || v.optional || have[k]?.version === v.version);
}

/** The app's packages (npm ci when needed), then this build of evaltrace. Returns the app's directory. */
export function install() {
  if (!installed()) {
    console.log("installing test/nextjs/app (npm ci) ...");
    execFileSync(npm, ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
  }
  const built = join(root, "packages", "evaltrace");
  if (!existsSync(join(built, "dist", "index.js"))) throw new Error(`no build of evaltrace in ${built}/dist: run npx tsup first`);
  const target = join(dir, "node_modules", "evaltrace");
  rmSync(target, { recursive: true, force: true });
  for (const part of ["package.json", "dist", "bin"]) cpSync(join(built, part), join(target, part), { recursive: true });
  // Zero-code's hook packages: @evaltrace/auto has no code, only dependencies, which the app
  // already has at the same versions (peers of @vercel/otel).
  const auto = join(dir, "node_modules", "@evaltrace", "auto");
  rmSync(auto, { recursive: true, force: true });
  cpSync(join(root, "packages", "auto", "package.json"), join(auto, "package.json"));
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) install();
