import { deliver } from "evaltrace";
import { after } from "next/server";
import { answer } from "../../../lib/answer";

export const runtime = "edge";

export async function GET(request: Request) {
  const q = new URL(request.url).searchParams.get("q") ?? "";
  const text = await answer(q, "edge");
  deliver(after);
  return Response.json({ route: "edge", text });
}
