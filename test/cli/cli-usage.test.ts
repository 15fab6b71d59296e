import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { hasStack, runCli } from "./run-cli.js";

describe("evaltrace --help, --version and bad arguments", () => {
  it("--version prints the version and exits 0", async () => {
    for (const flag of ["--version", "-v"]) {
      const r = await runCli([flag]);
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    }
  });

  it("--help prints the usage and exits 0, on its own and on every command", async () => {
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: evaltrace <command>/);
    for (const command of ["dev", "push-dataset", "push-prompt"]) {
      for (const flag of ["--help", "-h"]) {
        const r = await runCli([command, flag]);
        expect(r.code, `${command} ${flag}`).toBe(0);
        expect(r.stdout).toContain(`Usage: evaltrace ${command}`);
        expect(r.stderr).toBe("");
      }
    }
  });

  it("an unknown option or command: one line naming it, exit 1, no stack", async () => {
    const cases: [string[], RegExp][] = [
      [["dev", "--prot", "1"], /^evaltrace dev: Unknown option '--prot'; see evaltrace dev --help\n$/],
      [["push-dataset", "--alias", "a", "--chunk", "3", "f.csv"], /^evaltrace push-dataset: Unknown option '--chunk'/],
      [["push-prompt", "--alias"], /^evaltrace push-prompt: Option '--alias <value>' argument missing/],
      [["--frob"], /^evaltrace: unknown option "--frob"/],
      [["serve"], /^evaltrace: unknown command "serve"; commands: dev, push-dataset, push-prompt/],
      [["dev", "--port", "http"], /^evaltrace dev: --port must be an integer from 0 to 65535; got "http"\n$/],
      [["dev", "extra"], /^evaltrace dev: unexpected argument "extra"/],
    ];
    for (const [args, expected] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(hasStack(r.stderr)).toBe(false);
    }
  });

  it("no command prints the usage on stderr and exits 1", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Usage: evaltrace/);
  });
});
