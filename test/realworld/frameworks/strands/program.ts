// AWS Strands Agents for TypeScript, its official example `strands-ts/examples/first-agent/src/index.ts`
// from github.com/strands-agents/sdk-typescript at commit 00e04880c30c5ce1f76e40c164d32ce52f7b6dca
// (main, 2026-06-02; the file last changed in 563d9414a962), copied byte for byte beside this file as
// first-agent.ts (Apache-2.0: LICENSE here) and run as it is: it calls main() itself. Four agent
// invocations (a default agent, a BedrockModel agent without tools, the same with its get_weather
// tool, the same streamed) on Bedrock's ConverseStream.
// Offline: AWS_ENDPOINT_URL_BEDROCK_RUNTIME (the AWS SDK's service endpoint variable) and static
// fake credentials point its BedrockModel at the fake Bedrock; nothing in the example is changed.
import "./first-agent.js";
