// Two builds of evaltrace side by side in workloads A and B, several bench runs in a row: the
// median, over every round, of the second build's round against the first's run right before it.
//   node bench/compare.mjs <base entry file> <other entry file> [runs=4]
// (each an ESM entry file: `npx tsup`'s dist/index.js, or a bundle of one with esbuild,
// packages external). Four runs are 36 paired rounds, about a minute; two builds of the same
// code measured so gave 1.00 on A and B, with quartiles about ±7%: differences of about 5% show.
import { resolve } from "node:path";

const [base, other, runsArg = "4"] = process.argv.slice(2);
if (!base || !other) {
  console.error("usage: node bench/compare.mjs <base entry file> <other entry file> [runs]");
  process.exit(2);
}
process.env.BENCH_BUILDS = `base=${resolve(base)},other=${resolve(other)}`;
process.env.BENCH_SUBJECTS = "evaltrace@base,evaltrace@other";
process.env.BENCH_C_RUNS ??= "1";
process.env.BENCH_C_TRACES ??= "1000";
const { peers } = await import("./peers.mjs");

const ratios = { a: [], b: [] };
const toRaw = { base: { a: [], b: [] }, other: { a: [], b: [] } };
for (let run = 0; run < Number(runsArg); run++) {
  const { subjects } = await peers();
  const b = subjects["evaltrace@base"];
  const o = subjects["evaltrace@other"];
  for (const r of o.rounds) {
    const same = b.rounds.find((x) => x.process === r.process && x.round === r.round);
    if (!same) continue;
    ratios.a.push(r.a / same.a);
    ratios.b.push(r.b / same.b);
  }
  for (const [name, s] of [["base", b], ["other", o]]) {
    toRaw[name].a.push(s.ratioToRawOtel.totalCpuA);
    toRaw[name].b.push(s.ratioToRawOtel.totalCpuB);
  }
}
const q = (xs, p) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.floor(p * (s.length - 1))].toFixed(3) : "-";
};
const line = (xs) => `${q(xs, 0.5)} (quartiles ${q(xs, 0.25)}-${q(xs, 0.75)})`;
console.log(`\nother/base, per round (${ratios.a.length} rounds): A ${line(ratios.a)}, B ${line(ratios.b)}`);
console.log(`to raw OTel, per run: A base ${toRaw.base.a.join(" ")}, other ${toRaw.other.a.join(" ")}; B base ${toRaw.base.b.join(" ")}, other ${toRaw.other.b.join(" ")}`);
process.exit(0);
