// Start-up bench subject: an empty ESM script. Its last lines (the same in every subject) take
// the time and the CPU time used (all threads) at the end of the top level and, at exit, the process's peak RSS.
const top = performance.timeOrigin + performance.now();
const { userCPUTime, systemCPUTime } = process.resourceUsage();
process.on("exit", () => process.stdout.write(`${JSON.stringify({ top, cpu: (userCPUTime + systemCPUTime) / 1000, maxRSS: process.resourceUsage().maxRSS })}\n`));
