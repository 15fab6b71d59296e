// Every area of the typed client, against the local emulator:  node examples/client.mjs
// (run `npm run build` first; `npm run demo` does that).
import { Client, ServiceError, ValidationError } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";

const dev = await startDevServer({ port: 0, plan: "team" });
const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url });

// Metrics: custom ones beside the defaults.
const { id: metricId } = await client.metrics.create({
  name: "Politeness",
  criteria: "Is the reply polite?",
  evaluationParams: ["input", "actualOutput"],
  multiTurn: false,
});
await client.metrics.update(metricId, { evaluationSteps: ["Read the reply", "Look for rude words"] });
console.log("metrics:", (await client.metrics.list()).length, "(defaults included)");

// Metric collections: add or remove one metric without losing the others.
const { id: collectionId } = await client.metricCollections.create({ name: "answers", multiTurn: false, metricSettings: [{ metric: { name: "Answer Relevancy" } }] });
await client.metricCollections.addMetric(collectionId, { metric: { name: "Politeness" }, threshold: 0.7 });
console.log("collection metrics:", (await client.metricCollections.list())[0].metricSettings.map((s) => s.metric.name));

// Evaluate: a test run over test cases.
const { testRunId } = await client.evaluate.run({
  metricCollection: "answers",
  testCases: [{ input: "Where is my order?", actualOutput: "It ships tomorrow." }],
  hyperparameters: { model: "gpt-4o-mini" },
  identifier: "example",
});
console.log("test run:", testRunId);

// Prompts: commits on branches.
const commit = await client.prompts.push({ alias: "support-system", messages: [{ role: "system", content: "You are a helpful support agent." }] });
console.log("prompt commit:", commit.hash);

// Datasets: chunked pushes with progress.
const goldens = Array.from({ length: 1200 }, (_, i) => ({ input: `Question ${i}`, expectedOutput: `Answer ${i}` }));
const pushed = await client.datasets.push({ alias: "faq", goldens }, { chunkSize: 500, onProgress: ({ pushed, total }) => console.log(`  dataset ${pushed}/${total}`) });
console.log("dataset:", pushed.datasetId, `${pushed.requests} requests`);

// Organization API keys: rotate with a grace period (an organization key is needed).
const org = new Client({ apiKey: dev.orgKey, baseUrl: dev.url });
const rotated = await org.apiKeys.rotate(dev.orgKeyId, { gracePeriodInHours: 24 });
console.log("rotation pending until", rotated.rotatesAt, "new value", `${rotated.shadowValue.slice(0, 14)}...`);

// Errors: rejected before sending, or by the service.
try {
  await client.prompts.push({ alias: "bad", text: "t", messages: [{ role: "user", content: "c" }] });
} catch (err) {
  if (err instanceof ValidationError) console.log("rejected locally:", err.field, "-", err.message);
}
try {
  await client.metrics.create({ name: "Politeness", criteria: "again", evaluationParams: ["input"], multiTurn: false });
} catch (err) {
  if (err instanceof ServiceError) console.log("rejected by the service:", err.status, err.message);
}

await client.close();
await org.close();
await dev.close();
