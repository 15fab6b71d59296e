import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/clock.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, PromptInterpolationError, type Prompt, ServiceError, ValidationError } from "../../src/index.js";
import { startRecorder } from "../helpers/recorder.js";
import { memoryLogger } from "../helpers/sdk.js";

let dev: DevServer;
let reads: string[];
let client: Client;
let now: number;
let logger: ReturnType<typeof memoryLogger>;
const clock = { ...systemClock, now: () => now };

beforeEach(async () => {
  reads = [];
  now = Date.parse("2026-06-01T00:00:00Z");
  logger = memoryLogger();
  dev = await startDevServer({ port: 0, strict: true, log: (line) => line.includes("GET /v1/prompts/") && reads.push(line) });
  client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0, clock, logger });
});
afterEach(async () => {
  await client.close();
  await dev.close();
});

/** Raw writes the client has no call for: releasing a version, setting a label (the platform's page). */
async function raw(method: string, path: string, body: unknown) {
  const res = await fetch(dev.url + path, { method, headers: { SERVICE_API_KEY: dev.projectKey, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

const textOf = (p: Prompt) => (p.type === "TEXT" ? p.text : p.messages.map((m) => m.content).join("|"));

describe("prompts.pull against the emulator", () => {
  it("pulls the newest commit of main with its template, metadata and interpolate()", async () => {
    await client.prompts.push({ alias: "greet", text: "old {name}" });
    const pushed = await client.prompts.push({ alias: "greet", text: "Hello {name}, welcome to {place}", modelSettings: { name: "gpt-4o", temperature: 0.3 }, outputType: "TEXT" });
    const prompt = await client.prompts.pull("greet");
    expect(prompt).toMatchObject({ alias: "greet", promptId: pushed.promptId, hash: pushed.hash, version: null, label: null, branch: "main", type: "TEXT", text: "Hello {name}, welcome to {place}", messages: null, interpolationType: "FSTRING", modelSettings: { name: "gpt-4o", temperature: 0.3 }, outputType: "TEXT", outputSchema: null, tools: null });
    expect(prompt.type === "TEXT" && prompt.interpolate({ name: "Ada", place: "Paris" })).toBe("Hello Ada, welcome to Paris");
    expect(reads).toEqual([expect.stringContaining("GET /v1/prompts/greet/commits/latest")]);
  });

  it("pulls by hash, by branch, by version and by label, each from its own read path", async () => {
    const one = await client.prompts.push({ alias: "p", text: "one" });
    const two = await client.prompts.push({ alias: "p", text: "two" });
    await client.prompts.push({ alias: "p", text: "exp", branch: "experiment" });
    await raw("POST", "/v1/prompts/p/versions", { hash: one.hash });
    await raw("PUT", "/v1/prompts/p/labels/production", { version: "00.00.01" });
    expect(textOf(await client.prompts.pull("p", { hash: one.hash }))).toBe("one");
    expect(textOf(await client.prompts.pull("p", { branch: "experiment" }))).toBe("exp");
    expect(await client.prompts.pull("p", { version: "00.00.01" })).toMatchObject({ text: "one", version: "00.00.01", label: null, hash: one.hash });
    expect(await client.prompts.pull("p", { label: "production" })).toMatchObject({ text: "one", version: "00.00.01", label: "production" });
    expect((await client.prompts.pull("p")).hash).toBe(two.hash);
    // The request log shows paths without the query; "exp" above shows ?branch= reached the emulator.
    expect(reads.map((l) => l.split(" ")[1])).toEqual([
      `/v1/prompts/p/commits/${one.hash}`,
      "/v1/prompts/p/commits/latest",
      "/v1/prompts/p/versions/00.00.01",
      "/v1/prompts/p/labels/production",
      "/v1/prompts/p/commits/latest",
    ]);
  });

  it("a messages prompt renders each message's content, JINJA included", async () => {
    await client.prompts.push({
      alias: "chat",
      interpolationType: "JINJA",
      messages: [
        { role: "system", content: "You help {{ user.name }}.{% if vip %} Be brief.{% endif %}" },
        { role: "user", content: "{% for q in questions %}- {{ q }}\n{% endfor %}" },
      ],
    });
    const prompt = await client.prompts.pull("chat");
    expect(prompt.type).toBe("LIST");
    expect(prompt.interpolate({ user: { name: "Ada" }, vip: true, questions: ["a?", "b?"] })).toEqual([
      { role: "system", content: "You help Ada. Be brief." },
      { role: "user", content: "- a?\n- b?\n" },
    ]);
    const err = (() => {
      try {
        prompt.interpolate({ vip: false });
      } catch (e) {
        return e as PromptInterpolationError;
      }
    })();
    expect(err).toBeInstanceOf(PromptInterpolationError);
    expect(err?.variables).toEqual(["user", "questions"]);
  });

  it("the pulled prompt is frozen, so a cached copy cannot be changed by one caller", async () => {
    await client.prompts.push({ alias: "p", messages: [{ role: "user", content: "hi" }] });
    const prompt = await client.prompts.pull("p");
    expect(Object.isFrozen(prompt)).toBe(true);
    expect(() => {
      (prompt.messages as unknown as { content: string }[])[0]!.content = "changed";
    }).toThrow(TypeError);
  });

  it("an unknown alias, hash, version or label is the service's 404 as a ServiceError", async () => {
    const err = await client.prompts.pull("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 404, path: "/v1/prompts/nope/commits/latest" });
    await client.prompts.push({ alias: "p", text: "t" });
    await expect(client.prompts.pull("p", { label: "production" })).rejects.toMatchObject({ status: 404 });
    await expect(client.prompts.pull("p", { version: "00.00.07" })).rejects.toMatchObject({ status: 404 });
  });

  it("rejects bad selectors before sending anything, naming the option", async () => {
    const rejected = async (fn: () => Promise<unknown>, field: string, message: RegExp) => {
      const err = await fn().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
      expect((err as Error).message).toMatch(message);
    };
    await rejected(() => client.prompts.pull("p", { version: "00.00.01", label: "production" } as never), "options", /one of version, label, hash or branch, not version and label/);
    await rejected(() => client.prompts.pull("p", { label: "" }), "options.label", /non-empty string/);
    await rejected(() => client.prompts.pull("p", { hash: 12 } as never), "options.hash", /non-empty string; got 12/);
    await rejected(() => client.prompts.pull("p", { tag: "x" } as never), "options.tag", /not an option/);
    await rejected(() => client.prompts.pull("p", { cacheTtlMillis: -1 }), "options.cacheTtlMillis", />= 0/);
    await rejected(() => client.prompts.pull("", {}), "alias", /non-empty string/);
    expect(reads).toEqual([]);
  });

  it("an unknown promptCache option or a bad TTL on the client is a TypeError", () => {
    expect(() => new Client({ apiKey: "k", promptCache: { ttl: 5 } as never })).toThrow(/promptCache\.ttl/);
    expect(() => new Client({ apiKey: "k", promptCache: { ttlMillis: -5 } })).toThrow(/ttlMillis/);
    expect(() => new Client({ apiKey: "k", promptCache: { maxEntries: 0 } })).toThrow(/maxEntries/);
  });
});

describe("the prompt cache", () => {
  it("within the TTL (60 s by default) a pull is served from memory: one request for three pulls", async () => {
    await client.prompts.push({ alias: "p", text: "v1" });
    await client.prompts.pull("p");
    now += 59_000;
    await client.prompts.pull("p");
    await client.prompts.pull("p");
    expect(reads).toHaveLength(1);
    expect(client.prompts.cacheStats()).toMatchObject({ misses: 1, hits: 2, size: 1 });
  });

  it("after the TTL the stale copy is served at once while one background request refreshes it", async () => {
    await client.prompts.push({ alias: "p", text: "v1" });
    await client.prompts.pull("p");
    await client.prompts.push({ alias: "p", text: "v2" });
    now += 61_000;
    const stale = await Promise.all([client.prompts.pull("p"), client.prompts.pull("p"), client.prompts.pull("p")]);
    expect(stale.map(textOf)).toEqual(["v1", "v1", "v1"]);
    await vi.waitFor(() => expect(reads).toHaveLength(2));
    await vi.waitFor(async () => expect(textOf(await client.prompts.pull("p"))).toBe("v2"));
    expect(reads).toHaveLength(2);
    expect(client.prompts.cacheStats()).toMatchObject({ refreshes: 1, staleServed: 3, failures: 0 });
  });

  it("the TTL is set on the client and per call; a TTL of 0 asks the service every time", async () => {
    const short = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0, clock, promptCache: { ttlMillis: 1_000 } });
    try {
      await client.prompts.push({ alias: "p", text: "v1" });
      await short.prompts.pull("p");
      await client.prompts.push({ alias: "p", text: "v2" });
      now += 1_500;
      expect(textOf(await short.prompts.pull("p"))).toBe("v1");
      await vi.waitFor(async () => expect(textOf(await short.prompts.pull("p"))).toBe("v2"));
      const before = reads.length;
      await short.prompts.pull("p", { cacheTtlMillis: 0 });
      await short.prompts.pull("p", { cacheTtlMillis: 0 });
      expect(reads.length).toBe(before + 2);
    } finally {
      await short.close();
    }
  });

  it("each alias and selector is its own entry: a label pull does not answer a version pull", async () => {
    const one = await client.prompts.push({ alias: "p", text: "one" });
    await raw("POST", "/v1/prompts/p/versions", { hash: one.hash });
    await raw("PUT", "/v1/prompts/p/labels/production", { version: "00.00.01" });
    await client.prompts.pull("p", { label: "production" });
    await client.prompts.pull("p", { version: "00.00.01" });
    await client.prompts.pull("p", { hash: one.hash });
    await client.prompts.pull("p");
    expect(reads).toHaveLength(4);
    expect(client.prompts.cacheStats().size).toBe(4);
  });

  it("concurrent first pulls of one prompt share one request", async () => {
    await client.prompts.push({ alias: "p", text: "t" });
    const all = await Promise.all(Array.from({ length: 5 }, () => client.prompts.pull("p")));
    expect(new Set(all).size).toBe(1);
    expect(reads).toHaveLength(1);
  });

  it("holds at most maxEntries prompts, the least recently used evicted first", async () => {
    const small = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0, clock, promptCache: { maxEntries: 2 } });
    try {
      for (const alias of ["a", "b", "c"]) await client.prompts.push({ alias, text: alias });
      await small.prompts.pull("a");
      await small.prompts.pull("b");
      await small.prompts.pull("a");
      await small.prompts.pull("c");
      expect(small.prompts.cacheStats()).toMatchObject({ size: 2, evictions: 1 });
      const before = reads.length;
      await small.prompts.pull("a");
      expect(reads.length).toBe(before);
      await small.prompts.pull("b");
      expect(reads.length).toBe(before + 1);
    } finally {
      await small.close();
    }
  });

  it("while the service is down the last good copy is served, logged once and counted", async () => {
    await client.prompts.push({ alias: "p", text: "good" });
    await client.prompts.pull("p");
    await dev.close();
    now += 61_000;
    // Stale: served at once; its background refresh fails.
    expect(textOf(await client.prompts.pull("p"))).toBe("good");
    await vi.waitFor(() => expect(client.prompts.cacheStats().failures).toBe(1));
    // TTL 0: the waited pull fails and falls back to the last good copy.
    expect(textOf(await client.prompts.pull("p", { cacheTtlMillis: 0 }))).toBe("good");
    expect(textOf(await client.prompts.pull("p", { cacheTtlMillis: 0 }))).toBe("good");
    expect(client.prompts.cacheStats()).toMatchObject({ failures: 3, servedLastGood: 2 });
    const warnings = logger.lines.filter((l) => l.startsWith("warn:") && l.includes('prompt "p"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("serving the copy pulled at 2026-06-01T00:00:00.000Z");
    // A prompt never pulled has no copy: the outage is the caller's error.
    await expect(client.prompts.pull("other")).rejects.toBeInstanceOf(ServiceError);
  });

  it("after a failed refresh the next one waits 5 s, and a success logs that the copy is current again", async () => {
    let down = true;
    const recorder = await startRecorder(() =>
      down ? { status: 503, body: { success: false, error: "maintenance" } } : { status: 200, body: { success: true, data: { id: "pid", hash: "h2", type: "TEXT", text: "new", interpolationType: "FSTRING" } } },
    );
    const c = new Client({ apiKey: "k", baseUrl: recorder.url, maxRetries: 0, clock, logger, promptCache: { ttlMillis: 10_000 } });
    try {
      down = false;
      await c.prompts.pull("p");
      down = true;
      now += 11_000;
      await c.prompts.pull("p");
      await vi.waitFor(() => expect(c.prompts.cacheStats().failures).toBe(1));
      now += 1_000;
      await c.prompts.pull("p");
      expect(recorder.requests).toHaveLength(2);
      down = false;
      now += 5_000;
      await c.prompts.pull("p");
      await vi.waitFor(() => expect(recorder.requests).toHaveLength(3));
      await vi.waitFor(() => expect(logger.lines.some((l) => l.startsWith("info:") && l.includes("pulled again"))).toBe(true));
      expect(logger.lines.filter((l) => l.includes("maintenance"))).toHaveLength(1);
    } finally {
      await c.close();
      await recorder.close();
    }
  });

  it("a background refresh is sent once, without the client's retries, and fails quietly into the counters", async () => {
    let n = 0;
    const recorder = await startRecorder(() => (n++ === 0 ? { status: 200, body: { success: true, data: { id: "pid", hash: "h1", text: "old" } } } : { status: 503, body: { success: false, error: "busy" } }));
    const c = new Client({ apiKey: "k", baseUrl: recorder.url, maxRetries: 3, clock, logger });
    try {
      await c.prompts.pull("p");
      now += 61_000;
      expect(textOf(await c.prompts.pull("p"))).toBe("old");
      await vi.waitFor(() => expect(c.prompts.cacheStats().failures).toBe(1));
      await new Promise((r) => setTimeout(r, 300));
      expect(recorder.requests).toHaveLength(2);
    } finally {
      await c.close();
      await recorder.close();
    }
  });

  it("an answer that is not a prompt is a ServiceError naming what is wrong", async () => {
    const recorder = await startRecorder(() => ({ status: 200, body: { success: true, data: { id: "x", hash: "h", text: "t", messages: [{ role: "user", content: "c" }] } } }));
    const c = new Client({ apiKey: "k", baseUrl: recorder.url, maxRetries: 0 });
    try {
      await expect(c.prompts.pull("p")).rejects.toThrow(/both data.text and data.messages/);
    } finally {
      await c.close();
      await recorder.close();
    }
  });

  it("clearCache() forgets every copy", async () => {
    await client.prompts.push({ alias: "p", text: "t" });
    await client.prompts.pull("p");
    client.prompts.clearCache();
    await client.prompts.pull("p");
    expect(reads).toHaveLength(2);
  });
});
