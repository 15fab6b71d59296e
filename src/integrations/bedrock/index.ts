/** `evaltrace/bedrock`: llm spans for the Amazon Bedrock Runtime client (`@aws-sdk/client-bedrock-runtime`). */
export type { WrapBedrockOptions } from "./wrap.js";
export { wrapBedrock } from "./wrap.js";
