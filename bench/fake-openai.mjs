// The fake OpenAI server of the bridge and serverless benchmarks, in a process of its own (so its
// CPU is not counted in the app's): evaltrace's startFakeOpenAI (dist/fakes.js), answering every
// text turn with a reply of a few hundred characters. Sends { url } over IPC once listening;
// stops on "stop".
import { startFakeOpenAI } from "../dist/fakes.js";

/** The text of every answer: the size of a short real reply. */
export const ANSWER =
  "Right now it is light rain at about 14.5 °C, with a fresh breeze (18 km/h) and high humidity. " +
  "Tomorrow afternoon brings showers with a high of 16 °C, so take a compact umbrella and a light waterproof jacket for the tour. " +
  "The following two days dry out and warm up to 18-19 °C, so a warm jacket is only needed in the evenings.";

const fake = await startFakeOpenAI({ reply: () => ANSWER });
process.send({ url: fake.url });
process.on("message", async (m) => {
  if (m === "stop") {
    await fake.close();
    process.exit(0);
  }
});
