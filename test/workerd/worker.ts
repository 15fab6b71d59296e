// A Cloudflare Worker using evaltrace, bundled by the workerd test and run in real workerd.
import { configure, deliver, observe, stats, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";

interface Env {
  EVALTRACE_API_KEY: string;
  EVALTRACE_BASE_URL: string;
}

let configured = false;

const retrieve = observe({ type: "retriever", name: "search-docs", embedder: "e" }, async (q: string) => [`doc about ${q}`]);
const generate = observe({ type: "llm", name: "generate", model: "gpt-4o-mini" }, async (q: string, docs: string[]) => {
  updateCurrentSpan({ inputTokenCount: 3, outputTokenCount: 5 });
  return `${docs[0]} answers ${q}`;
});
const agent = observe({ type: "agent", name: "worker-agent" }, async (q: string) => {
  updateCurrentTrace({ threadId: "edge-thread", tags: ["workerd"] });
  return generate(q, await retrieve(q));
});

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<Response> {
    if (!configured) {
      configure({ apiKey: env.EVALTRACE_API_KEY, baseUrl: env.EVALTRACE_BASE_URL, registerExitHooks: false });
      configured = true;
    }
    const url = new URL(request.url);
    if (url.pathname === "/stats") return Response.json(stats());
    const answer = await agent(url.searchParams.get("q") ?? "");
    ctx.waitUntil(deliver()); // delivered after the response, while workerd keeps the request alive
    return new Response(answer);
  },
};
