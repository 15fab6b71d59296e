import { isIP } from "node:net";
import { HttpError } from "./http-error.js";

/** Host names always accepted: loopback under every spelling. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** The host name of a `Host` header, lower case, port and IPv6 brackets removed. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colon = h.indexOf(":");
  return colon >= 0 && colon === h.lastIndexOf(":") ? h.slice(0, colon) : h;
}

/** Whether an address is loopback (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopback(host: string): boolean {
  const h = hostName(host);
  return h === "localhost" || h === "::1" || h.startsWith("127.") || h === "::ffff:127.0.0.1";
}

/**
 * Guards the key-less pages (viewer, read API) against DNS rebinding: a page of another site
 * reaches the emulator under that site's name, so only loopback names, the bound host, IP
 * literals (a rebinding attack needs a name it controls) and names given in `allowed` pass.
 * `allowed` containing `*` turns the check off.
 */
export function hostChecker(boundHost: string, allowed: readonly string[]): (header: string | undefined) => void {
  const names = new Set([...LOOPBACK_NAMES, hostName(boundHost), ...allowed.map(hostName)]);
  if (names.has("*")) return () => {};
  return (header) => {
    if (header === undefined) return; // HTTP/1.0 clients send none; a browser always does
    const name = hostName(header);
    if (names.has(name) || isIP(name) !== 0 || name.endsWith(".localhost")) return;
    throw new HttpError(
      403,
      `Host "${header.slice(0, 100)}" is not a name of this emulator (DNS rebinding protection); allow it with --allow-host ${name} or startDevServer({ allowedHosts: ["${name}"] })`,
    );
  };
}
