/**
 * Metadata keys of a streamed llm span's timings (the spec has no field for them). A leaf module:
 * the integrations write them and the emulator's viewer reads them.
 */

/** Milliseconds from the request to the first content (text or tool-call) token of the stream. */
export const TIME_TO_FIRST_TOKEN_KEY = "evaltrace.timeToFirstTokenMs";
/** Output tokens per second, from the first token to the end of the stream. */
export const TOKENS_PER_SECOND_KEY = "evaltrace.tokensPerSecond";
