// One subject running one workload under `node --trace-gc-nvp`, driven by bench/gc.mjs: prints
// its pid (the receiver child traces its GCs too), runs the workload, flushes after each chunk.
//   B: chunks of 1,000 one-span calls, each followed by a flush (as workload B; count a multiple of 1,000).
//   C: agent traces in waves of 25, the loop turning between waves (as workload C; count a multiple of 25).
import { subjectEnv, subjects } from "./subjects.mjs";

Object.assign(process.env, subjectEnv);
const [name, workload, url, count] = process.argv.slice(2);
const app = await subjects[name](`${url}/s/${encodeURIComponent(name)}`);
const tick = () => new Promise((r) => setImmediate(r));
console.log(`PID ${process.pid}`);
let acc = 0;
if (workload === "B") {
  for (let c = 0; c < Number(count) / 1000; c++) {
    for (let j = 0; j < 1000; j++) acc += app.sync(c * 1000 + j, 1);
    await app.flush();
  }
} else {
  for (let i = 0; i < Number(count); i += 25) {
    const wave = [];
    for (let j = 0; j < 25; j++) wave.push(app.agent(`question ${i + j}`));
    await Promise.all(wave);
    await tick();
  }
  await app.flush();
}
console.log(`DONE ${acc}`);
process.exit(0);
