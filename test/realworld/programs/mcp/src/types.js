// Not an example: stands in for the SDK source file the examples import relatively (see test/realworld/programs/SOURCES.md).
export * from "@modelcontextprotocol/sdk/types.js";
