// Start-up bench subject: `import "evaltrace"` (or BENCH_STARTUP_ENTRY) once @opentelemetry/api is
// loaded, timed inside the process (issue 41's bound: at most 25 ms beyond the API). The API is
// what any SDK joining OpenTelemetry's context loads; this is what evaltrace adds to it, without
// the noise of a process start.
await import("@opentelemetry/api");
const started = performance.now();
await import(process.env.BENCH_STARTUP_ENTRY || "evaltrace");
const inProcess = performance.now() - started;
const top = performance.timeOrigin + performance.now();
const { userCPUTime, systemCPUTime } = process.resourceUsage();
process.on("exit", () => process.stdout.write(`${JSON.stringify({ top, cpu: (userCPUTime + systemCPUTime) / 1000, maxRSS: process.resourceUsage().maxRSS, inProcess })}\n`));
