/**
 * `evaltrace/auto`: zero-code tracing. Load it before the app
 * (`node --import evaltrace/auto app.mjs`, `node -r evaltrace/auto app.cjs`, or either through
 * `NODE_OPTIONS`): the SDK is configured from the environment (`SERVICE_API_KEY`,
 * `SERVICE_BASE_URL`, ...) and every supported library the app loads is instrumented, except
 * those named in `EVALTRACE_DISABLE_INSTRUMENTATIONS`. It exports nothing.
 */
import { instrumentFromEnvironment } from "./instrument.js";

instrumentFromEnvironment();
