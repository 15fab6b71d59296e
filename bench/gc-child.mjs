// One subject running one workload under `node --trace-gc-nvp`, driven by bench/gc.mjs: prints
// its pid (the receiver child traces its GCs too), runs the workload, flushes after each chunk.
//   B: chunks of CHUNK one-span calls, each followed by a flush (as workload B; count a multiple of CHUNK).
//   C: agent traces in waves of WAVE, the loop turning between waves (as workload C; count a multiple of WAVE).
import { agentWaves } from "./common.mjs";
import { CHUNK, subjectEnv, subjects, WAVE } from "./subjects.mjs";

Object.assign(process.env, subjectEnv);
const [name, workload, url, count] = process.argv.slice(2);
const app = await subjects[name](`${url}/s/${encodeURIComponent(name)}`);
console.log(`PID ${process.pid}`);
let acc = 0;
if (workload === "B") {
  for (let c = 0; c < Number(count) / CHUNK; c++) {
    for (let j = 0; j < CHUNK; j++) acc += app.sync(c * CHUNK + j, 1);
    await app.flush();
  }
} else {
  await agentWaves(app, Number(count), WAVE);
  await app.flush();
}
console.log(`DONE ${acc}`);
process.exit(0);
