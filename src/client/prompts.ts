import { checkPromptPush } from "../protocol/requests.js";
import type { PromptPush, PromptPushResult } from "../protocol/types.js";
import type { Prompt } from "../prompts/prompt.js";
import type { PromptCacheStats } from "../prompts/prompt-cache.js";
import { type ClientHttp, str } from "./client-http.js";
import type { PromptPullOptions, PromptPuller } from "./prompt-pull.js";

/** Prompt pushes (spec 4.8) and pulls (the vendor's read paths), with a cache. */
export class PromptsApi {
  constructor(
    private readonly http: ClientHttp,
    private readonly puller: PromptPuller,
  ) {}

  /**
   * Pulls a prompt: by `version`, `label`, `hash` or `branch` (its newest commit), or the newest
   * commit of `main` when none is given. Pulled prompts are cached per alias and selector: within
   * the TTL from memory; after it, the cached copy is served at once while one background request
   * refreshes it; while the service is down, the last good copy (logged once, counted in
   * {@link PromptsApi.cacheStats}). A prompt never pulled before fails with the service's error.
   *
   * @example
   * const prompt = await client.prompts.pull("greeting", { label: "production" });
   * const text = prompt.type === "TEXT" ? prompt.interpolate({ name: "Ada" }) : "";
   */
  pull(alias: string, options?: PromptPullOptions): Promise<Prompt> {
    return this.puller.pull(alias, options);
  }

  /** Counters of the prompt cache: hits, stale copies served, refreshes, failures, last good copies served. */
  cacheStats(): PromptCacheStats {
    return this.puller.stats();
  }

  /** Forgets every cached prompt; the next pulls ask the service. */
  clearCache(): void {
    this.puller.clear();
  }

  /** Pushes a commit to a prompt's branch; the prompt and branch are created when new. */
  async push(prompt: PromptPush): Promise<PromptPushResult> {
    const res = await this.http.call("POST", "/v2/prompts", prompt, checkPromptPush);
    return { promptId: str(res.data?.promptId, "data.promptId"), hash: str(res.data?.hash, "data.hash"), link: res.link ?? "", deprecated: res.deprecated === true };
  }
}
