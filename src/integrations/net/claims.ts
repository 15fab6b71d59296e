import { processWide } from "../../process-wide.js";
import type { NetSdk } from "./endpoints.js";

/** Whether the net records a request of an SDK claimed whole (zero-code): asked when the request starts. */
export type SdkClaim = () => boolean;

/**
 * Which requests the net records: those of clients an app wrapped itself (`wrapOpenAI(client)`
 * claims that client), and those of every client of an SDK that zero-code instrumentation claims
 * (while it is on and no traced framework is the caller). Shared by every copy of the package.
 */
interface Claims {
  clients: WeakSet<object>;
  sdks: Map<NetSdk, SdkClaim>;
}

const claims = (): Claims => processWide<Claims>("netClaims", () => ({ clients: new WeakSet(), sdks: new Map() }));

/** The net records the requests of this client (the object its request layer runs on). */
export function claimClient(client: object): void {
  claims().clients.add(client);
}

/** The net records the requests of every client of `sdk` for which `claim` answers true. */
export function claimSdk(sdk: NetSdk, claim: SdkClaim): void {
  claims().sdks.set(sdk, claim);
}

/** Whether the net records a request that `client` of `sdk` starts now. Never throws. */
export function isClaimed(sdk: NetSdk, client: object): boolean {
  try {
    const c = claims();
    if (c.clients.has(client)) return true;
    return c.sdks.get(sdk)?.() === true;
  } catch {
    return false;
  }
}
