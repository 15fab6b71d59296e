import { deliver } from "evaltrace";
import { after } from "next/server";
import { answer } from "../../../lib/answer";

export async function GET(request: Request) {
  const q = new URL(request.url).searchParams.get("q") ?? "";
  const text = await answer(q, "node");
  // The trace is sent after the response; Next waits for after() before it exits on SIGTERM.
  deliver(after);
  return Response.json({ route: "node", text });
}
