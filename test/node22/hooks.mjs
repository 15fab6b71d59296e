// The resolve hook of register.mjs: on a bare name not found from the importer, retry from test/node22.
const here = new URL("./package.json", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    const bare = !/^(\.|\/|[a-z]+:)/i.test(specifier);
    if (!bare || err?.code !== "ERR_MODULE_NOT_FOUND" || context.parentURL === here) throw err;
    return nextResolve(specifier, { ...context, parentURL: here });
  }
}
