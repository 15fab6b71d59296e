/** Whether a URL's `hostname` names this machine (where the emulator runs), as `new URL()` writes it. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]" || hostname === "::1";
}
