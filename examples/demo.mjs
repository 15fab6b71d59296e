// The quick start: an instrumented support agent, run against the local emulator of the
// service, then the trace the emulator received, printed as a tree.
//
//   npm install && npm run demo
import {
  configure,
  currentTraceUuid,
  evaluateThread,
  flush,
  observe,
  shutdown,
  stats,
  updateCurrentSpan,
  updateCurrentTrace,
} from "evaltrace";
import { startDevServer } from "@evaltrace/dev";

// PLACEHOLDER scores: the emulator is given a fixed function instead of a judge, which gives every
// metric the same score whatever the answer, only to show where scores appear. To judge for real,
// send to the live service, or give the emulator an OpenAI-compatible model endpoint:
// startDevServer({ judgeUrl, judgeModel }), or evaltrace dev --judge-url URL --judge-model NAME (a
// local model server works; docs/emulator.md). Without either, evaluations stay NOT_JUDGED.
const PLACEHOLDER_SCORE = 0.5;
const dev = await startDevServer({
  port: 0,
  judge: ({ metric }) => ({ score: PLACEHOLDER_SCORE, reason: `placeholder: a fixed score for ${metric.name}, not a judgement` }),
});
const realScores =
  "      Real scores: send to the live service (EVALTRACE_BASE_URL and EVALTRACE_API_KEY), or judge with a model:\n" +
  "      evaltrace dev --judge-url URL --judge-model NAME, any OpenAI-compatible endpoint (see docs/emulator.md).";
console.log(
  `note: the evaluation scores below are the emulator's PLACEHOLDER scores: this demo gives it a fixed function\n      instead of a judge, so every metric gets ${PLACEHOLDER_SCORE} whatever the answer. They are not a judgement.\n${realScores}\n`,
);
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// The metric collections the online and offline evaluations use.
const call = (path, body) =>
  fetch(dev.url + path, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey }, body: JSON.stringify(body) });
await call("/v1/metric-collections", { name: "answers", multiTurn: false, metricSettings: [{ metric: { name: "Answer Relevancy" } }, { metric: { name: "Bias" } }] });
await call("/v1/metric-collections", { name: "conversation", multiTurn: true, metricSettings: [{ metric: { name: "Turn Relevancy" } }] });

const docs = ["Orders ship within 2 days.", "Refunds take 5 days.", "Support is open 9-17."];

const retrieve = observe({ type: "retriever", name: "search-docs", embedder: "text-embedding-3-small", topK: 2 }, async (query) =>
  docs.filter((d) => d.toLowerCase().includes(query.split(" ").at(-1).replace("?", "").slice(0, 5))).slice(0, 2),
);

const lookupOrder = observe({ type: "tool", name: "lookup-order", description: "Finds an order by id" }, async (id) => ({ id, status: "shipped" }));

const generate = observe({ type: "llm", name: "generate", model: "gpt-4o-mini", metricCollection: "answers" }, async (question, context) => {
  const answer = context.length ? `${context[0]} (${question.length} chars asked)` : "Let me check that for you.";
  updateCurrentSpan({
    inputTokenCount: 42,
    outputTokenCount: 17,
    llmTestCase: { input: question, actualOutput: answer, retrievalContext: context },
  });
  return answer;
});

const agent = observe(
  { type: "agent", name: "support-agent", availableTools: ["lookup-order"], agentHandoffs: [] },
  async (question) => {
    updateCurrentTrace({ threadId: "conversation-42", userId: "user-7", tags: ["demo"] });
    const context = await retrieve(question);
    if (question.includes("order")) await lookupOrder("A-1001");
    return { answer: await generate(question, context), trace: currentTraceUuid() };
  },
);

const turns = [];
for (const question of ["When do orders ship?", "And how long do refunds take?"]) {
  const { answer, trace } = await agent(question);
  turns.push(trace);
  console.log(`user: ${question}\nbot:  ${answer}\n`);
}

// The conversation is over: evaluate the whole thread (sent only after its traces arrived).
const evaluation = await evaluateThread("conversation-42", { metricCollection: "conversation" });
await flush();
console.log(`delivered ${stats().tracesDelivered} trace(s) in ${stats().requests - 1} request(s); thread evaluation: ${evaluation.status}\n`);

// An evaluation's results, each score said to be a placeholder (never printed as if it were a verdict).
const placeholders = (results) =>
  (results ?? []).map((r) => `${r.metric}: placeholder score ${r.score} (fixed by this demo, not judged)`).join("; ") || "no results";

// What the emulator received, as a tree.
const micros = (iso) => Date.parse(iso.replace(/\.\d+/, "")) * 1000 + Number((/\.(\d+)/.exec(iso)?.[1] ?? "0").padEnd(6, "0").slice(0, 6));
for (const uuid of turns) {
  const trace = await (await fetch(`${dev.url}/_dev/traces/${uuid}`)).json();
  console.log(`trace ${trace.uuid}  name=${trace.name}  thread=${trace.threadId}  user=${trace.userId}  status=${trace.status}`);
  const children = new Map();
  for (const s of trace.spans) children.set(s.parentUuid ?? "root", [...(children.get(s.parentUuid ?? "root") ?? []), s]);
  // Box-drawing connectors: ├─ for a span with siblings below it, └─ for the last one.
  const print = (parent, prefix) => {
    const kids = (children.get(parent) ?? []).sort((a, b) => a.startTime.localeCompare(b.startTime));
    kids.forEach((s, i) => {
      const last = i === kids.length - 1;
      const ms = ((micros(s.endTime) - micros(s.startTime)) / 1000).toFixed(3);
      const extra = [s.model && `model=${s.model}`, s.inputTokenCount && `tokens=${s.inputTokenCount}/${s.outputTokenCount}`, s.embedder && `embedder=${s.embedder}`];
      console.log([`${prefix}${last ? "└─" : "├─"} [${s.type}] ${s.name}`, `${ms} ms`, ...extra].filter(Boolean).join(" "));
      print(s.uuid, `${prefix}${last ? "   " : "│  "}`);
    });
  };
  print("root", "  ");
  for (const job of trace.jobs) console.log(`   evaluation (${job.trigger}) of ${job.target} with "${job.metricCollection}": ${job.status}, ${placeholders(job.results)}`);
  console.log();
}
const threadJobs = dev.state.jobs.filter((j) => j.target === "thread");
for (const job of threadJobs) console.log(`thread evaluation of ${job.targetId} with "${job.metricCollection}": ${job.status}, ${placeholders(job.results)}`);
console.log(`\nnote: every score above is a PLACEHOLDER (${PLACEHOLDER_SCORE} for every metric), not a judgement.\n${realScores}`);

await shutdown();
if (process.stdout.isTTY && !process.env.CI) {
  // Interactive: keep the emulator up so the viewer URL works, until Ctrl+C. Without a terminal
  // the emulator closes at once, so no URL is printed that would lead nowhere.
  console.log(`\nviewer: ${dev.url}/ (open it in a browser to see these traces as a waterfall; Ctrl+C stops the emulator)`);
  await new Promise((resolve) => process.once("SIGINT", resolve));
}
await dev.close();
