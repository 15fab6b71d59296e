import { context } from "@opentelemetry/api";
import { modelCallOwned, quietly } from "../kit/model-call.js";
import { claimClient, isClaimed } from "./claims.js";
import { endpointOf, type NetSdk } from "./endpoints.js";
import { type NetSpan, openNetSpan } from "./net-span.js";
import { patchPrototypeMethod } from "./patch-method.js";
import { readResponse } from "./response-reader.js";

type Options = { method?: unknown; path?: unknown; body?: unknown };
type Made = { response?: unknown; options?: Options };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/**
 * The net under a Stainless client (`openai`, `@anthropic-ai/sdk`): every request goes through
 * `makeRequest(options, retriesRemaining, retryOfRequestLogID)` on the client's class, which
 * resolves, after its retries, to `{ response, options }` before the SDK reads the body. A
 * request that no method-level wrapper owns, of a claimed client, to an endpoint of the table, is
 * recorded: the span opens when the options are known, and ends from a clone of the response (or
 * fails with the SDK's error). What `makeRequest` returns is the SDK's own promise.
 *
 * @param proto - The client's class prototype, or a client (its chain is patched, never the object).
 */
export function netStainless(sdk: NetSdk, proto: unknown): void {
  patchPrototypeMethod(proto, "makeRequest", (self, args, call) => {
    let watch: ((result: unknown) => void) | undefined;
    try {
      // A retry (its third argument names the first attempt) belongs to the request being watched.
      if (args[2] === undefined && isObject(self) && !modelCallOwned() && isClaimed(sdk, self)) watch = watcher(sdk, args[0]);
    } catch {
      watch = undefined;
    }
    const result = call();
    if (watch) quietly(() => watch!(result));
    return result;
  });
}

/** Claims `client` (a Stainless client the app wrapped) and puts the net under its class. Never throws. */
export function netStainlessClient(sdk: NetSdk, client: object): void {
  quietly(() => {
    claimClient(client);
    netStainless(sdk, Object.getPrototypeOf(client));
  });
}

/** Follows one request: opens its span once its options are known, ends it from what `makeRequest` gave. */
function watcher(sdk: NetSdk, optionsInput: unknown): (result: unknown) => void {
  const parent = context.active();
  let net: NetSpan | undefined;
  let tried = false;
  const open = (options: unknown): NetSpan | undefined => {
    if (tried) return net;
    tried = true;
    if (!isObject(options) || typeof options.path !== "string") return undefined;
    const endpoint = endpointOf(sdk, typeof options.method === "string" ? options.method : undefined, options.path);
    if (!endpoint) return undefined;
    const body = isObject(options.body) && !ArrayBuffer.isView(options.body) ? options.body : undefined;
    net = openNetSpan(endpoint, body, options.path, parent);
    return net;
  };
  Promise.resolve(optionsInput).then(
    (options) => quietly(() => open(options)),
    () => undefined,
  );
  return (result) => {
    if (!result || typeof (result as { then?: unknown }).then !== "function") return;
    (result as Promise<Made>).then(
      (made) => quietly(() => {
        const span = open(made?.options);
        if (span) readResponse(span, made?.response);
      }),
      (err: unknown) => quietly(() => open(undefined)?.span.fail(err)),
    );
  };
}
