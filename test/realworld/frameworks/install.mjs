#!/usr/bin/env node
// Installs one agent framework of the real-world suite (test/realworld/frameworks/<name>/package.json,
// kept out of the root devDependencies) into that folder's node_modules (git-ignored), with
// `npm ci` run by this process's Node. The framework tests call install(name) first; it does
// nothing when node_modules already matches the lock.
//   node test/realworld/frameworks/install.mjs adk
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

/** Whether `name`'s node_modules matches its lock (npm writes its own copy of the lock there after an install). */
export function installed(name) {
  const dir = join(root, name);
  const hidden = join(dir, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return false;
  const want = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")).packages;
  const have = JSON.parse(readFileSync(hidden, "utf8")).packages;
  return Object.entries(want).every(([k, v]) => k === "" || v.optional || v.dev || have[k]?.version === v.version);
}

/** Installs `name` (a folder beside this file) from its lock, unless it is installed already. */
export function install(name) {
  if (installed(name)) return;
  console.log(`installing test/realworld/frameworks/${name} (npm ci) ...`);
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: join(root, name), stdio: "inherit", shell: process.platform === "win32" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const name of process.argv.slice(2)) install(name);
