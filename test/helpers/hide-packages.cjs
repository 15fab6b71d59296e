// Preloaded by tests (NODE_OPTIONS="--require <this file>") to make packages look uninstalled:
// `require` of a package named in EVALTRACE_TEST_HIDE (comma-separated), or of a file in it,
// fails as Node fails for a package that is not installed. Only `require` is covered (the SDK
// loads its optional packages through createRequire, from either build), not ESM `import`.
const Module = require("node:module");

const hidden = new Set((process.env.EVALTRACE_TEST_HIDE ?? "").split(",").filter(Boolean));
const resolve = Module._resolveFilename;

Module._resolveFilename = function resolveUnlessHidden(request, ...rest) {
  const parts = request.split("/");
  const name = request.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  if (hidden.has(name)) {
    const error = new Error(`Cannot find module '${request}' (hidden by test/helpers/hide-packages.cjs)`);
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
