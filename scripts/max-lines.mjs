#!/usr/bin/env node
// Part of npm run lint: no file in src/ over MAX lines. A file that grows past it holds more than
// one concept; split it by concept (docs/architecture.md), do not raise the limit.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const MAX = 600;
const root = fileURLToPath(new URL("..", import.meta.url));

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.[cm]?[jt]s$/.test(entry.name)) yield path;
  }
}

const over = [];
for (const file of files(join(root, "src"))) {
  const lines = readFileSync(file, "utf8").split("\n").length - 1;
  if (lines > MAX) over.push(`${relative(root, file)}: ${lines} lines`);
}
if (over.length > 0) {
  console.error(`Files in src/ over ${MAX} lines (split them by concept):\n  ${over.join("\n  ")}`);
  process.exit(1);
}
