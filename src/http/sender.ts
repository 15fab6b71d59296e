
/** A request body: JSON text, or its UTF-8 bytes (sent as they are, not encoded again). */
export type RequestBody = string | Uint8Array;

/** An answer as the transport reads it: status, lower-cased headers, the body's text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Sends one HTTP request and reads its whole answer; rejects on a network error or timeout. */
export type Sender = (
  url: string,
  init: { method: HttpMethod; headers: Record<string, string>; body?: RequestBody; timeoutMillis: number },
) => Promise<RawResponse>;

/** The HTTP methods the service uses. */
export type HttpMethod = "GET" | "POST" | "PUT";
