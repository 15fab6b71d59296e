#!/usr/bin/env node
// Installs test/realworld/frameworks/tanstack-ai/package.json (TanStack AI, pinned) into its
// git-ignored node_modules with `npm ci`, run by this process's Node. The test that needs
// it calls install() first; it does nothing when node_modules already matches the lock.
//   node test/realworld/frameworks/tanstack-ai/install.mjs
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));

/** Whether node_modules matches the lock (npm writes its own copy of the lock there after an install). */
export function installed() {
  const hidden = join(dir, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return false;
  const want = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")).packages;
  const have = JSON.parse(readFileSync(hidden, "utf8")).packages;
  return Object.entries(want).every(([k, v]) => k === "" || v.optional || v.dev || have[k]?.version === v.version);
}

export function install() {
  if (installed()) return;
  console.log("installing test/realworld/frameworks/tanstack-ai (npm ci) ...");
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit", shell: process.platform === "win32" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) install();
