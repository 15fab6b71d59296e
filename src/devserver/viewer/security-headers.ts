import { createHash } from "node:crypto";
import { viewerScript } from "./page/html.js";
import { viewerStyles } from "./page/styles.js";

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The Content-Security-Policy of every answer: nothing loads but the page's own inline script
 * and style (allowed by their hashes, so an injected `<script>` or `style` would not run), reads
 * go to this origin only, and no page may frame the viewer.
 */
const CSP = [
  "default-src 'none'",
  `script-src ${sha256(viewerScript)}`,
  `style-src ${sha256(viewerStyles)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Headers every answer of the emulator carries, as defence in depth against a hostile page and
 * hostile trace content: the CSP above, no framing (`X-Frame-Options` for older browsers), no
 * content-type sniffing (a JSON array is not a script), and no cross-origin loading of any
 * answer (`Cross-Origin-Resource-Policy`), nor a referrer that would carry a login token.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "no-referrer",
});
