import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A running fake OpenAI API. */
export interface FakeOpenAI {
  /** Base URL to give an OpenAI client (`baseURL`), e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Every request received: path (without `/v1`) and JSON body. */
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * A fake OpenAI API on loopback, to run integrations offline (examples, tests): it answers in
 * OpenAI's wire format, chat completions and responses, as JSON or server-sent events, always
 * with "Orders ship in 2 days." On a chat completion with tools and no tool result yet, it calls
 * the first tool with `{"orderId": "A-1001"}`. The model name "boom" gets a 400.
 */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: { path: string; body: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      const path = (req.url ?? "").replace(/^\/v1/, "");
      requests.push({ path, body });
      if (body.model === "boom") {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "model boom does not exist", type: "invalid_request_error" } }));
        return;
      }
      const words = ["Orders ", "ship ", "in ", "2 days."];
      const sse = (events: unknown[], named = false) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const e of events) res.write(`${named ? `event: ${(e as { type: string }).type}\n` : ""}data: ${JSON.stringify(e)}\n\n`);
        if (!named) res.write("data: [DONE]\n\n");
        res.end();
      };
      if (path === "/chat/completions") {
        const base = { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o-mini-2024-07-18" };
        const messages = (body.messages as { role: string }[] | undefined) ?? [];
        if (Array.isArray(body.tools) && body.tools.length > 0 && !messages.some((m) => m.role === "tool") && !body.stream) {
          // First step of a tool loop: ask for the first tool, with arguments.
          const tool = (body.tools as { function: { name: string } }[])[0]!.function.name;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({
            ...base,
            choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tool, arguments: JSON.stringify({ orderId: "A-1001" }) } }] }, finish_reason: "tool_calls" }],
            usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
          }));
          return;
        }
        if (body.stream) {
          sse([
            ...words.map((w, i) => ({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content: w } : { content: w }, finish_reason: null }] })),
            { ...base, object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } },
          ]);
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...base, choices: [{ index: 0, message: { role: "assistant", content: words.join("") }, finish_reason: "stop" }], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } }));
        return;
      }
      if (path === "/responses") {
        const response = {
          id: "resp_1",
          object: "response",
          created_at: 1,
          model: "gpt-4.1-mini",
          status: "completed",
          output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: words.join(""), annotations: [] }] }],
          usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
        };
        if (body.stream) {
          sse(
            [
              { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [], usage: null } },
              ...words.map((w, i) => ({ type: "response.output_text.delta", sequence_number: i + 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: w })),
              { type: "response.completed", sequence_number: 9, response },
            ],
            true,
          );
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(response));
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
