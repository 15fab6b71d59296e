// What a fresh large buffer costs against one kept (issue 46: why a batch's slab is kept,
// src/export/slab-pool.ts): CPU per 650 KB buffer allocated and touched page by page, and the
// minor page faults it takes, then the same buffer touched again. On the Firecracker VMs these
// benchmarks run on, a page fault costs about 11 µs.
//   node bench/buffer-cost.mjs [buffers=2000] [kilobytes=650]
const N = Number(process.argv[2] ?? 2000);
const SIZE = Number(process.argv[3] ?? 650) * 1024;
const cpu = (c) => ((c.user + c.system) / N).toFixed(0);

let faults = process.resourceUsage().minorPageFault;
let start = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const b = Buffer.allocUnsafeSlow(SIZE);
  for (let p = 0; p < SIZE; p += 4096) b[p] = 1;
}
let used = process.cpuUsage(start);
faults = process.resourceUsage().minorPageFault - faults;
console.log(`fresh: ${cpu(used)} µs CPU per buffer (user ${(used.user / N).toFixed(0)}, system ${(used.system / N).toFixed(0)}), ${(faults / N).toFixed(1)} minor page faults per buffer`);

const kept = Buffer.allocUnsafeSlow(SIZE);
start = process.cpuUsage();
for (let i = 0; i < N; i++) for (let p = 0; p < SIZE; p += 4096) kept[p] = 1;
used = process.cpuUsage(start);
console.log(`kept: ${cpu(used)} µs CPU per buffer`);
