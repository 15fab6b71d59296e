import { type CallResult, cutCall, finishCall, quietly } from "../kit/model-call.js";
import type { NetSpan } from "./net-span.js";
import { replyResult } from "./read-body.js";
import { watchAppBranch } from "./app-branch.js";
import { AppLetGo, readSse } from "./sse.js";
import { StreamFold } from "./stream-fold.js";

/** The part of a fetch `Response` the net reads. */
interface ResponseLike {
  ok?: boolean;
  body?: unknown;
  status?: number;
  headers?: { get(name: string): string | null };
  clone(): { body?: unknown; text(): Promise<string> };
}

const isResponse = (v: unknown): v is ResponseLike => v !== null && typeof v === "object" && typeof (v as { clone?: unknown }).clone === "function";

const isWebStream = (v: unknown): v is ReadableStream<Uint8Array> => v !== null && typeof v === "object" && typeof (v as { getReader?: unknown }).getReader === "function";

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why a stream ended before its end, for the span's error. */
function whyCut(err: unknown): string {
  if (err instanceof AppLetGo) return err.message;
  const name = err instanceof Error ? err.name : "";
  return name === "AbortError" || name === "APIUserAbortError" ? "the stream was aborted before its end" : `the stream failed before its end: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Ends a net span from the response of its request, read from a clone (a tee of the body): the
 * SDK reads the response itself as if the net were not there. Call it before the SDK reads the
 * body (the clone is taken at once). A JSON reply ends the span when read; an event stream when
 * it ends (errored, with the text so far, when it fails or the app aborts it). Never throws.
 */
export function readResponse(net: NetSpan, response: unknown): void {
  const { span, endpoint, input } = net;
  try {
    if (!isResponse(response)) {
      span.end();
      return;
    }
    if (response.ok === false) {
      span.fail(new Error(`the request failed with HTTP status ${response.status}`));
      return;
    }
    const copy = response.clone();
    const finish = (r: CallResult) => finishCall(span, {}, input, r);
    const streamed = /text\/event-stream/i.test(response.headers?.get("content-type") ?? "");
    if (streamed && endpoint.stream && isWebStream(copy.body)) {
      const fold = new StreamFold(endpoint.stream, endpoint.reply);
      readSse(copy.body, (data) => quietly(() => fold.add(data)), watchAppBranch(response)).then(
        () => quietly(() => finish(fold.result())),
        (err: unknown) => quietly(() => cutCall(span, fold.result(), whyCut(err))),
      );
      return;
    }
    copy.text().then(
      (text) => quietly(() => finish(replyResult(endpoint.reply, parse(text)))),
      (err: unknown) => span.fail(err),
    );
  } catch {
    // A response the net cannot read (a body already taken, another fetch's Response): the span
    // ends with what the request said.
    quietly(() => span.end());
  }
}
