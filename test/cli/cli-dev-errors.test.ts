import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { hasStack, runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-"));
let busy: DevServer | undefined;
afterAll(() => busy?.close());

/** Expects one line on stderr matching `pattern`, exit 1, no stack trace. */
async function failsWith(args: string[], pattern: RegExp): Promise<void> {
  const r = await runCli(args);
  expect(r.code, args.join(" ")).toBe(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(hasStack(r.stderr)).toBe(false);
  expect(r.stdout).toBe("");
}

describe("evaltrace dev: one clear line and exit 1 when it cannot start", () => {
  it("a port in use", async () => {
    busy = await startDevServer({ port: 0 });
    const port = new URL(busy.url).port;
    await failsWith(["dev", "--port", port], new RegExp(`^evaltrace dev: port ${port} on 127\\.0\\.0\\.1 is already in use \\(another evaltrace dev\\?\\); pass --port N, or --port 0`));
  });

  it("a --data path whose directory does not exist, or that is a directory", async () => {
    await failsWith(["dev", "--port", "0", "--data", join(dir, "missing", "state.jsonl")], /--data .*state\.jsonl: its directory does not exist/);
    await failsWith(["dev", "--port", "0", "--data", dir], /--data .*: it is a directory; name a file in it/);
  });

  it("a corrupt data file is named, left as it was, and the way out is said", async () => {
    const notJson = join(dir, "notes.jsonl");
    writeFileSync(notJson, "these are my notes\nnot a journal\n");
    await failsWith(["dev", "--port", "0", "--data", notJson], /^evaltrace dev: cannot use --data .*notes\.jsonl: .*(not valid JSON|JSON Parse error).* \(move it aside to start empty\)\n$/);
    expect(readFileSync(notJson, "utf8")).toBe("these are my notes\nnot a journal\n");

    const damaged = join(dir, "damaged.jsonl");
    writeFileSync(damaged, '{"t":"meta","v":{}}\n{"t":"trace", broken\n{"t":"meta","v":{}}\n');
    await failsWith(["dev", "--port", "0", "--data", damaged], /cannot use --data .*damaged\.jsonl: line 2 is (not valid JSON|JSON Parse error) .*the journal is damaged/);
  });

  it("bad values of --plan and --max-traces", async () => {
    await failsWith(["dev", "--plan", "gold"], /--plan must be free or team; got "gold"/);
    await failsWith(["dev", "--max-traces", "0"], /--max-traces must be a positive integer; got "0"/);
  });
});
