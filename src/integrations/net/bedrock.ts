import { context } from "@opentelemetry/api";
import { processWide } from "../../process-wide.js";
import { lookalike, proxyWith } from "../kit/lookalike.js";
import { HeldStream, STOPPED_READING } from "../kit/stream-ending.js";
import { cutCall, finishCall, isObject, modelCallOwned, quietly, tapIterator } from "../kit/model-call.js";
import { claimClient, isClaimed } from "./claims.js";
import { type Endpoint, endpointOf, type OutputTable } from "./endpoints.js";
import { type NetSpan, openNetSpan } from "./net-span.js";
import { pick } from "./paths.js";
import { replyResult } from "./read-body.js";
import { StreamFold } from "./stream-fold.js";

/** The name of the net's middleware in a client's stack (`client.middlewareStack.identify()` lists it). */
const NET_MIDDLEWARE = "evaltraceNet";

/** The clients whose stack has the net (shared by every copy of evaltrace). */
const netted = (): WeakSet<object> => processWide("bedrockNetClients", () => new WeakSet<object>());

type Next = (args: unknown) => Promise<unknown>;
type Middleware = (next: Next, handlerContext: unknown) => (args: unknown) => Promise<unknown>;

interface Stack {
  add(middleware: Middleware, options: { step: string; priority?: string; name: string; override?: boolean }): void;
}

const decoder = new TextDecoder();

/** A body (a string, or bytes) as JSON; undefined when it is neither or not JSON. Never throws. */
function json(body: unknown): unknown {
  try {
    const text = typeof body === "string" ? body : body instanceof Uint8Array ? decoder.decode(body) : undefined;
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request a `build`-step middleware sees: the SDK's `HttpRequest`, serialized (and not yet signed). */
function requestOf(args: unknown): { method?: string; path: string; body: unknown } | undefined {
  const request = isObject(args) ? args.request : undefined;
  if (!isObject(request) || typeof request.path !== "string") return undefined;
  return { method: typeof request.method === "string" ? request.method : undefined, path: request.path, body: request.body };
}

/** Ends `net` when the app has read the output's event stream (a Proxy of the output whose stream is tapped), or at once from the reply. */
function readOutput(net: NetSpan, table: OutputTable, output: unknown): unknown {
  const { span, endpoint, input } = net;
  if (!isObject(output)) {
    span.end();
    return output;
  }
  if (table.events === undefined) {
    const reply = table.json === undefined ? output : json(output[table.json]);
    finishCall(span, {}, input, replyResult(endpoint.reply, reply));
    return output;
  }
  const member = table.events;
  const stream = output[member];
  if (!endpoint.stream || !isObject(stream) || typeof stream[Symbol.asyncIterator] !== "function") {
    span.end();
    return output;
  }
  const fold = new StreamFold(endpoint.stream, endpoint.reply);
  // The app holds the stream from now: deliver() cuts it short when nobody reads it (never read, or not to its end).
  const held = new HeldStream(span, (why) => cutCall(span, fold.result(), why));
  const iterate = stream[Symbol.asyncIterator] as (this: unknown) => AsyncIterator<unknown>;
  let read = false;
  const iterator = lookalike(iterate, () => {
    const it = iterate.call(stream);
    if (read) return it;
    read = true;
    return tapIterator(it, {
      fold: (event) => quietly(() => fold.add(table.eventJson === undefined ? event : json(pick(event, table.eventJson)[0]))),
      reads: held,
      done: () => held.settle(() => finishCall(span, {}, input, fold.result())),
      failed: (err) => held.cutShort(`the stream failed before its end: ${err instanceof Error ? err.message : String(err)}`),
      abandoned: () => held.cutShort(STOPPED_READING),
    });
  });
  return proxyWith(output, { [member]: proxyWith(stream, { [Symbol.asyncIterator]: iterator }) });
}

/** Opens the net span of a request to a model endpoint, or undefined (not one, not claimed, tracing off). */
function start(client: object, args: unknown): { net: NetSpan; table: OutputTable } | undefined {
  if (modelCallOwned() || !isClaimed("bedrock", client)) return undefined;
  const request = requestOf(args);
  if (!request) return undefined;
  const endpoint: Endpoint | undefined = endpointOf("bedrock", request.method, request.path);
  if (!endpoint?.output) return undefined;
  const net = openNetSpan(endpoint, json(request.body), request.path, context.active());
  return net ? { net, table: endpoint.output } : undefined;
}

/**
 * The net's middleware, at the end of the `build` step: after the request is serialized (its
 * path and body are the request's own), before the SDK's retries and signing, so one per `send`.
 * It sees what the SDK parsed from the response (a Bedrock event stream is decoded by the SDK):
 * the reply, or the event stream it taps as the app reads it (see readOutput).
 */
function netMiddleware(client: object): Middleware {
  return (next) => (args) => {
    let started: ReturnType<typeof start>;
    try {
      started = start(client, args);
    } catch {
      started = undefined;
    }
    if (!started) return next(args);
    const { net, table } = started;
    let result: Promise<unknown>;
    try {
      result = next(args);
    } catch (err) {
      net.span.fail(err);
      throw err;
    }
    return result.then(
      (handled) => {
        let out = handled;
        quietly(() => {
          if (!isObject(handled)) {
            net.span.end();
            return;
          }
          const output = readOutput(net, table, handled.output);
          if (output !== handled.output) out = { ...handled, output };
        });
        return out;
      },
      (err: unknown) => {
        net.span.fail(err);
        throw err;
      },
    );
  };
}

/**
 * The net under an AWS SDK Bedrock Runtime client: a middleware on its own `middlewareStack` (the
 * SDK's extension point; the client keeps its own properties) that records a request to a model
 * endpoint (`/model/{id}/converse`, `converse-stream`, `invoke`, `invoke-with-response-stream`)
 * that no span owns, while the client is claimed: one llm span from the request body and the
 * reply (or its event stream, ending when the app has read it). Added once per client. Never throws.
 */
export function netBedrock(client: unknown): void {
  quietly(() => {
    if (!isObject(client) || netted().has(client)) return;
    const stack = client.middlewareStack as Partial<Stack> | undefined;
    if (typeof stack?.add !== "function") return;
    stack.add(netMiddleware(client), { step: "build", priority: "low", name: NET_MIDDLEWARE, override: true });
    netted().add(client);
  });
}

/** Claims a Bedrock client (one the app wrapped) and puts the net under it. Never throws. */
export function netBedrockClient(client: unknown): void {
  quietly(() => {
    if (!isObject(client)) return;
    claimClient(client);
    netBedrock(client);
  });
}
