import type { Judge, JudgeInput } from "../context.js";
import { gEvalMessages } from "./g-eval-prompt.js";

/** Where and how the emulator asks an OpenAI-compatible chat completions API to judge. */
export interface OpenAIJudgeOptions {
  /** Base URL of the API (`http://127.0.0.1:11434/v1`), or its full `/chat/completions` URL. */
  url: string;
  /** Model name sent in each request. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given (local model servers need none). */
  apiKey?: string;
  /** Time one judge call may take, in milliseconds. */
  timeoutMillis: number;
  /** Aborts every call in flight (the emulator is closing). */
  signal: AbortSignal;
}

/** The highest score the judge is asked for; scores are divided by it. */
export const JUDGE_SCALE = 10;

/** Most characters of a reply or an error body quoted in an error message. */
const QUOTE = 200;

const quote = (s: string) => JSON.stringify(s.length > QUOTE ? `${s.slice(0, QUOTE)}…` : s);

/** The chat completions endpoint of a base URL; a clear error for one that is not http(s). */
export function completionsUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`judgeUrl must be an http(s) URL such as http://127.0.0.1:11434/v1; got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new TypeError(`judgeUrl must be an http(s) URL; got ${JSON.stringify(url)}`);
  const base = parsed.href.replace(/\/+$/, "");
  return base.endsWith("/chat/completions") ? base : `${base}/chat/completions`;
}

/**
 * `{score, reason}` from the text of the judge's reply: the JSON object in it (a Markdown code
 * fence or words around it are tolerated), its score 0..10 normalised to 0..1.
 */
export function parseVerdict(text: string): { score: number; reason?: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  let value: unknown;
  try {
    value = start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    value = undefined;
  }
  const v = (value ?? {}) as { score?: unknown; reason?: unknown };
  const raw = typeof v.score === "string" && v.score.trim() !== "" ? Number(v.score) : v.score;
  if (typeof raw !== "number" || !Number.isFinite(raw)) throw new Error(`the judge's reply is not JSON with a numeric "score": ${quote(text)}`);
  if (raw < 0 || raw > JUDGE_SCALE) throw new Error(`the judge gave the score ${raw}, outside 0..${JUDGE_SCALE}`);
  return { score: raw / JUDGE_SCALE, ...(typeof v.reason === "string" ? { reason: v.reason } : {}) };
}

/** The assistant text of a chat completion. */
function replyText(body: unknown): string {
  const choice = (body as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("");
  throw new Error(`the judge's answer has no choices[0].message.content: ${quote(JSON.stringify(body) ?? "")}`);
}

/**
 * A {@link Judge} that asks an OpenAI-compatible chat completions API (a local model server,
 * OpenAI itself, the fake OpenAI server in tests) with a G-Eval style prompt
 * ({@link gEvalMessages}). Every failure (refused connection, a non-2xx status, a timeout, a
 * reply without a score) is thrown as an Error naming the endpoint and what went wrong.
 */
export function openAIJudge(o: OpenAIJudgeOptions): Judge {
  const endpoint = completionsUrl(o.url);
  return async (input: JudgeInput) => {
    const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMillis)]);
    let res: Response;
    let text: string;
    try {
      res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify({ model: o.model, messages: gEvalMessages(input), temperature: 0, response_format: { type: "json_object" } }),
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (o.signal.aborted) throw new Error("the emulator closed before the judge answered");
      if (signal.aborted) throw new Error(`the judge at ${endpoint} did not answer within ${o.timeoutMillis} ms`);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach the judge at ${endpoint}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    if (!res.ok) {
      let detail = text;
      try {
        detail = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
      } catch {
        // not JSON: quoted as it is
      }
      throw new Error(`the judge at ${endpoint} answered ${res.status}: ${quote(detail)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the judge at ${endpoint} answered with something other than JSON: ${quote(text)}`);
    }
    return parseVerdict(replyText(body));
  };
}
