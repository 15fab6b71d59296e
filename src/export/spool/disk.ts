import { nodeBuiltin } from "../../util/node-builtin.js";
import { type Crc32, crc32Js } from "./format.js";

type Fs = typeof import("node:fs/promises");

/** What the spool needs of the platform: Node's file system, the host's name, a CRC. */
export interface Disk {
  fs: Fs;
  /** Joins a directory and a file name. */
  join: (dir: string, name: string) => string;
  hostname: string;
  pid: number;
  crc32: Crc32;
  /** Whether a process of this host with that id is alive. */
  isAlive: (pid: number) => boolean;
}

let loading: Promise<Disk | undefined> | undefined;

/** Node's file system and friends, loaded on first use; undefined where there are none (edge runtimes). */
export function loadDisk(): Promise<Disk | undefined> {
  loading ??= (async () => {
    const proc = (globalThis as { process?: { pid?: number; kill?: (pid: number, signal: number) => void } }).process;
    if (typeof proc?.pid !== "number" || typeof proc.kill !== "function") return undefined;
    try {
      // Nothing of these is loaded unless a spool is configured.
      const fs = await nodeBuiltin<Fs>("fs/promises");
      const os = await nodeBuiltin<typeof import("node:os")>("os");
      const path = await nodeBuiltin<typeof import("node:path")>("path");
      const zlib = await nodeBuiltin<{ crc32?: Crc32 }>("zlib");
      if (typeof fs.open !== "function" || typeof fs.readdir !== "function") return undefined;
      const kill = proc.kill.bind(proc);
      return {
        fs,
        join: (dir, name) => path.join(dir, name),
        hostname: safeHostname(os),
        pid: proc.pid,
        crc32: typeof zlib.crc32 === "function" ? zlib.crc32 : crc32Js,
        isAlive: (pid) => {
          try {
            kill(pid, 0);
            return true;
          } catch (err) {
            // EPERM: alive, another user's.
            return (err as { code?: string }).code === "EPERM";
          }
        },
      };
    } catch {
      return undefined;
    }
  })();
  return loading;
}

function safeHostname(os: typeof import("node:os")): string {
  try {
    return os.hostname();
  } catch {
    return "";
  }
}
