// One subject running one workload under `node --trace-gc-nvp`, driven by bench/gc.mjs: prints
// its pid (the receiver child traces its GCs too), runs the workload, flushes after each chunk.
//   B: chunks of CHUNK one-span calls, each followed by a flush (as workload B; count a multiple of CHUNK).
//   C: agent traces in waves of WAVE, the loop turning between waves (as workload C; count a multiple of WAVE).
import { CHUNK, subjectEnv, subjects, WAVE } from "./subjects.mjs";

Object.assign(process.env, subjectEnv);
const [name, workload, url, count] = process.argv.slice(2);
const app = await subjects[name](`${url}/s/${encodeURIComponent(name)}`);
const tick = () => new Promise((r) => setImmediate(r));
console.log(`PID ${process.pid}`);
let acc = 0;
if (workload === "B") {
  for (let c = 0; c < Number(count) / CHUNK; c++) {
    for (let j = 0; j < CHUNK; j++) acc += app.sync(c * CHUNK + j, 1);
    await app.flush();
  }
} else {
  for (let i = 0; i < Number(count); i += WAVE) {
    const wave = [];
    for (let j = 0; j < WAVE; j++) wave.push(app.agent(`question ${i + j}`));
    await Promise.all(wave);
    await tick();
  }
  await app.flush();
}
console.log(`DONE ${acc}`);
process.exit(0);
