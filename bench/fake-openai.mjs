// The fake OpenAI server of the bridge and serverless benchmarks, in a process of its own (so its
// CPU is not counted in the app's): evaltrace's startFakeOpenAI (dist/fakes.js), answering every
// text turn with a reply of a few hundred characters. Sends { url } over IPC once listening;
// stops on "stop".
import { startFakeOpenAI } from "../packages/dev/dist/fakes.js";
import { ANSWER } from "./bridge-turn.cjs";

const fake = await startFakeOpenAI({ reply: () => ANSWER });
process.send({ url: fake.url });
process.on("message", async (m) => {
  if (m === "stop") {
    await fake.close();
    process.exit(0);
  }
});
