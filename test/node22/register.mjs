// `node --import ./test/node22/register.mjs app.mjs`: a bare import the app's own tree cannot
// resolve is resolved from test/node22 (the packages the tests use that need Node 22+).
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
