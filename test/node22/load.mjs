// import() resolved from here, so that bare names find test/node22/node_modules (see test/helpers/node22.ts).
export const load = (specifier) => import(specifier);
