// An ordinary pass-through middleware (Next's edge runtime), with a header to show it ran.
import { NextResponse } from "next/server";

export function middleware() {
  const res = NextResponse.next();
  res.headers.set("x-middleware", "passed");
  return res;
}

export const config = { matcher: "/api/:path*" };
