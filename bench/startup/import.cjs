// Start-up bench subject: `require("evaltrace")` (or the build named in BENCH_STARTUP_ENTRY).
require(process.env.BENCH_STARTUP_ENTRY || "evaltrace");
const top = performance.timeOrigin + performance.now();
const { userCPUTime, systemCPUTime } = process.resourceUsage();
process.on("exit", () => process.stdout.write(`${JSON.stringify({ top, cpu: (userCPUTime + systemCPUTime) / 1000, maxRSS: process.resourceUsage().maxRSS })}\n`));
