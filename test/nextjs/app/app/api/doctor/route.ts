// The doctor run inside the app (the node runtime), as docs/doctor.md suggests: its findings as JSON.
import { doctor } from "evaltrace/doctor";

export async function GET() {
  const report = await doctor();
  return Response.json(report);
}
