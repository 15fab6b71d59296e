#!/usr/bin/env node
// Installs test/node22/package.json (the packages the tests use that need Node 22+) into
// test/node22/node_modules, with npm run by a Node 22+ binary so that their engines match and
// npm prints no EBADENGINE warning. The binary: the first argument, or this process's when it
// is Node 22+, or the one scripts/runtimes.mjs downloads into .runtimes/node-22. npm: the one on
// PATH (the `node` registry package ships none), its CLI run by that binary.
//   node test/node22/install.mjs [path/to/node22]
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const root = join(dir, "..", "..");
const platform = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;

/** Whether node_modules matches the lock (npm writes its own copy of the lock there after an install). */
export function installed() {
  const hidden = join(dir, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return false;
  const want = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")).packages;
  const have = JSON.parse(readFileSync(hidden, "utf8")).packages;
  return Object.entries(want).every(([k, v]) => k === "" || v.optional || v.dev || have[k]?.version === v.version);
}

function nodeBinary() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const bin = join(root, ".runtimes", "node-22", "node_modules", `node-${platform}`, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (existsSync(bin)) return bin;
  throw new Error(`no Node 22+ binary: pass one (node test/node22/install.mjs path/to/node), or run npm run test:runtimes (it downloads one into ${bin})`);
}

function npmCli() {
  const prefix = execFileSync("npm", ["root", "-g"], { encoding: "utf8", shell: process.platform === "win32" }).trim();
  const cli = join(prefix, "npm", "bin", "npm-cli.js");
  if (existsSync(cli)) return cli;
  throw new Error(`npm's CLI not found at ${cli}`);
}

export function install(node = nodeBinary()) {
  if (installed()) return;
  console.log(`installing test/node22 (npm ci with ${node}) ...`);
  execFileSync(node, [npmCli(), "ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) install(process.argv[2] || nodeBinary());
