import { DEFAULT_BASE_URL } from "../config/options.js";

/** Where the emulator listens by default: the address the SDK sends to when nothing else is set. */
const DEFAULT_ADDRESS = new URL(DEFAULT_BASE_URL);
export const DEFAULT_PORT = Number(DEFAULT_ADDRESS.port);
export const DEFAULT_HOST = DEFAULT_ADDRESS.hostname;

/** Usage of `evaltrace dev` (the command itself is in the dev kit, `@evaltrace/dev`: `./dev-kit.ts`). */
export const devUsage = `  dev    Start the local emulator of the service
         --port N            port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
         --host ADDR         address to listen on (default ${DEFAULT_HOST}); beyond loopback the viewer
                             and read API need the project key or the one-time login link
         --allow-host NAME   also answer the viewer and read API under this Host name (repeatable;
                             "*" turns the DNS-rebinding check off)
         --plan free|team    plan of the emulated project (default free)
         --data FILE         keep the state in FILE across restarts (an fsync'd journal)
         --max-traces N      keep at most N traces, evicting the oldest (default 10000 in memory,
                             unbounded with --data)
         --strict            reject what the spec does not allow (unknown fields, off-spec types,
                             the SERVICE-API-KEY spelling) instead of accepting it as the live service does
         --judge-url URL     judge custom metrics with this OpenAI-compatible chat completions API
                             (a local model server, e.g. http://127.0.0.1:11434/v1), in the background;
                             without it evaluations are recorded NOT_JUDGED (env EVALTRACE_DEV_JUDGE_URL;
                             EVALTRACE_DEV_JUDGE_API_KEY is sent as its bearer token)
         --judge-model NAME  the model the judge endpoint runs (env EVALTRACE_DEV_JUDGE_MODEL)
         --judge-concurrency N  judge calls in flight at once (default 4)
         --quiet             no request log
`;
