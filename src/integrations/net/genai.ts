import { context } from "@opentelemetry/api";
import { modelCallOwned, quietly } from "../kit/model-call.js";
import { claimClient, isClaimed } from "./claims.js";
import { endpointOf } from "./endpoints.js";
import { type NetSpan, openNetSpan } from "./net-span.js";
import { patchPrototypeMethod } from "./patch-method.js";
import { readResponse } from "./response-reader.js";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

function parse(text: unknown): unknown {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The net under `@google/genai`: every request of its `ApiClient` goes through
 * `apiCall(url, requestInit, ...)`, which resolves, after its retries, to the fetch `Response`
 * before the SDK reads it (`request` and `requestStream` both). A request that no method-level
 * wrapper owns, of a claimed client, to an endpoint of the table, is recorded: its span ends from
 * a clone of the response. What `apiCall` returns is the SDK's own promise.
 *
 * @param apiClient - A `GoogleGenAI`'s `apiClient` (its class is patched, never the object).
 */
export function netGenAI(apiClient: unknown): void {
  if (!isObject(apiClient)) return;
  patchPrototypeMethod(Object.getPrototypeOf(apiClient), "apiCall", (self, args, call) => {
    let net: NetSpan | undefined;
    try {
      if (isObject(self) && !modelCallOwned() && isClaimed("google-genai", self)) net = start(args[0], args[1]);
    } catch {
      net = undefined;
    }
    const result = call();
    if (net) {
      const open = net;
      quietly(() =>
        (result as Promise<unknown>).then(
          (response) => readResponse(open, response),
          (err: unknown) => open.span.fail(err),
        ),
      );
    }
    return result;
  });
}

/** Claims `apiClient` (of a `GoogleGenAI` the app wrapped) and puts the net under its class. Never throws. */
export function netGenAIClient(apiClient: unknown): void {
  if (!isObject(apiClient)) return;
  quietly(() => {
    claimClient(apiClient);
    netGenAI(apiClient);
  });
}

function start(url: unknown, init: unknown): NetSpan | undefined {
  if (typeof url !== "string" || !isObject(init)) return undefined;
  const path = new URL(url).pathname;
  const endpoint = endpointOf("google-genai", typeof init.method === "string" ? init.method : undefined, path);
  return endpoint ? openNetSpan(endpoint, parse(init.body), path, context.active()) : undefined;
}
