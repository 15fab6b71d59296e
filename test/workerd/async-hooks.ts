export * from "node:async_hooks";
