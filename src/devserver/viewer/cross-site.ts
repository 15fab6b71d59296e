import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "../http-error.js";

/** `Sec-Fetch-Site` values of requests the viewer itself makes, or that the user typed. */
const OWN = new Set(["same-origin", "none"]);

/**
 * 403 for a read another site's page made. Reads on loopback need no credential and a page of
 * any origin can send them (no CORS is needed to time an answer: a search that stops at its
 * first hit answers sooner when a guess matches), so only the viewer's own requests
 * (`Sec-Fetch-Site: same-origin`), typed addresses and bookmarks (`none`), and clients that
 * send neither that header nor an `Origin` (curl, scripts) pass. A browser without Fetch
 * Metadata is held to its `Origin`, which must be this emulator's. `localhost:<another port>`
 * is another origin, so `same-site` is refused too.
 *
 * The one exception is a top-level navigation to the page itself (`page`: a link from
 * elsewhere opens the viewer): the page is static, holds no data and cannot be framed
 * (`frame-ancestors 'none'`); its own reads are same-origin.
 */
export function checkSameOrigin(headers: IncomingHttpHeaders, page: boolean): void {
  const site = headers["sec-fetch-site"];
  if (site !== undefined) {
    if (OWN.has(site)) return;
    if (page && headers["sec-fetch-mode"] === "navigate" && headers["sec-fetch-dest"] === "document") return;
    throw refused(`Sec-Fetch-Site: ${site.slice(0, 40)}`);
  }
  const origin = headers.origin;
  if (origin === undefined) return;
  if (headers.host !== undefined && origin === `http://${headers.host}`) return;
  throw refused(`Origin ${origin.slice(0, 100)}`);
}

function refused(what: string): HttpError {
  return new HttpError(
    403,
    `refused a cross-site read (${what}): the viewer and /_dev/* answer only the viewer's own page, addresses typed into the browser, and clients that send no Origin (curl, scripts)`,
  );
}
