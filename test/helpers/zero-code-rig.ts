import { afterAll, beforeAll } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { type Finished, type Format, runZeroCode } from "./child.js";

/** What a zero-code test's apps run against: the emulator and the fake OpenAI server, for the whole file. */
export interface ZeroCodeRig {
  readonly dev: DevServer;
  readonly openai: FakeOpenAI;
  /** The environment an app needs: the emulator's key and address, the fake's URL (`FAKE_OPENAI`). */
  env(): Record<string, string>;
  /** An app under `--import evaltrace/auto` (children load dist/: build first with `npx tsup`). */
  runApp(format: Format, source: string, env?: Record<string, string>): Promise<Finished>;
  /** The stored traces (their spans) in which some span's input mentions `marker`. */
  tracesOf(marker: string): StoredSpan[][];
}

/** Starts the emulator and the fake OpenAI server before the file's tests and closes them after. */
export function zeroCodeRig(): ZeroCodeRig {
  let dev: DevServer | undefined;
  let openai: FakeOpenAI | undefined;
  beforeAll(async () => {
    dev = await startDevServer({ port: 0 });
    openai = await startFakeOpenAI();
  });
  afterAll(async () => {
    await openai?.close();
    await dev?.close();
  });
  const rig: ZeroCodeRig = {
    get dev() {
      return dev!;
    },
    get openai() {
      return openai!;
    },
    env: () => ({ EVALTRACE_API_KEY: dev!.projectKey, EVALTRACE_BASE_URL: dev!.url, FAKE_OPENAI: openai!.url }),
    runApp: (format, source, env = {}) => runZeroCode(format, source, { ...rig.env(), ...env }),
    tracesOf: (marker) =>
      Object.values(dev!.state.traces)
        .map((t) => t.spans)
        .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker))),
  };
  return rig;
}
