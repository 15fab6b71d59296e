// What the README's snippets leave to the reader: the app's own code and data, declared so that
// each snippet type-checks as written (test/build/readme-snippets.test.ts).
import type { Client, Golden } from "evaltrace";

declare global {
  /** The app's request handler (observed code). */
  function handle(request: Request): Promise<Response>;
  /** The app's dataset rows. */
  const goldens: Golden[];
  /** A test's clock, in epoch milliseconds. */
  const now: number;
  /** The client made in an earlier snippet. */
  const client: Client;
}
