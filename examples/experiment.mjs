// An experiment, offline: a task (the real openai package against the fake OpenAI server) over a
// dataset pulled from the local emulator, scored by a toy judge, posted as a test run.
//   npm run build && node examples/experiment.mjs
import { Client, configure, observe, runExperiment, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { wrapOpenAI } from "evaltrace/openai";
import OpenAI from "openai";

const fake = await startFakeOpenAI();
// A toy judge: 1 when the answer mentions shipping. A real judge asks a model.
const dev = await startDevServer({ port: 0, judge: ({ testCase }) => ({ score: /ship/i.test(testCase.actualOutput ?? "") ? 1 : 0, reason: "toy keyword judge" }) });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });
const client = new Client();

await client.metrics.create({ name: "Mentions shipping", criteria: "Does the answer say when the order ships?", evaluationParams: ["input", "actualOutput"], multiTurn: false });
await client.metricCollections.create({ name: "Support quality", multiTurn: false, metricSettings: [{ metric: { name: "Mentions shipping" }, threshold: 0.5 }] });
await client.datasets.push({
  alias: "support-questions",
  goldens: [{ input: "When does order A-1 ship?", expectedOutput: "In 2 days." }, { input: "Can I return a gift?" }, { input: "Where is order B-2?" }],
});

const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-offline", baseURL: fake.url }));
const lookup = observe({ type: "tool", name: "lookup_order" }, async (orderId) => ({ orderId, status: "packed" }));

const { testRunId, summary } = await runExperiment({
  identifier: "support-v1",
  dataset: "support-questions",
  metricCollection: "Support quality",
  hyperparameters: { model: "gpt-4o-mini" },
  task: async (golden) => {
    const order = /[A-Z]-\d/.exec(golden.input)?.[0];
    if (order) await lookup(order);
    const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: golden.input }] });
    return r.choices[0].message.content;
  },
  client,
  output: process.stdout,
});
console.log(`test run ${testRunId}: ${summary.sent} case(s), tasks ${summary.tasks.passRate * 100}% ok`);

await client.close();
await shutdown();
await dev.close();
await fake.close();
