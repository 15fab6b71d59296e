import { afterAll, afterEach, beforeAll } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type Fault, type FaultProxy, type FaultProxyOptions, type ProxiedRequest, startFaultProxy } from "./fault-proxy.js";

/** The emulator of a test file, and the fault proxy a test puts in front of it. */
export interface FaultyEmulator {
  /** The file's emulator (strict under the test suite's environment), started before its tests. */
  readonly dev: DevServer;
  /** Starts this test's fault proxy in front of the emulator (closed after the test). */
  proxy(fault: (n: number, request: ProxiedRequest) => Fault | undefined, options?: FaultProxyOptions): Promise<FaultProxy>;
}

/** Registers the file's hooks: one emulator for all its tests, each test's fault proxy closed after it. */
export function faultyEmulator(): FaultyEmulator {
  let dev: DevServer | undefined;
  let proxy: FaultProxy | undefined;
  beforeAll(async () => {
    dev = await startDevServer({ port: 0 });
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => dev?.close());
  return {
    get dev(): DevServer {
      if (!dev) throw new Error("the emulator starts in beforeAll: use it inside a test");
      return dev;
    },
    async proxy(fault, options = {}) {
      await proxy?.close();
      proxy = await startFaultProxy(this.dev.url, fault, options);
      return proxy;
    },
  };
}
