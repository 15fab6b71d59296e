// What the docs' snippets leave to the reader, made at run time (their types: readme-prelude.d.ts).
// Loaded with `node --import` before each block that test/build/readme-snippets.test.ts runs.
import { Client } from "evaltrace";

/** The client made in an earlier snippet: the emulator's, from the environment. */
globalThis.client = new Client();
/** The app's dataset rows. */
globalThis.goldens = [{ input: "When do orders ship?", expectedOutput: "Orders ship within 2 days." }];
/** A test's clock, in epoch milliseconds. */
globalThis.now = Date.now();
/** The app's request handler (observed code). */
globalThis.handle = async () => new Response("ok");
