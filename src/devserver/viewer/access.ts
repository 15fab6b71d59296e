import { randomBytes, timingSafeEqual } from "node:crypto";
import { HttpError } from "../http-error.js";

/** Name of the viewer's session cookie. */
export const SESSION_COOKIE = "evaltrace_dev_session";

/** Constant-time equality of the UTF-8 bytes; strings of unequal byte lengths (non-ASCII input) are unequal, not an error. */
function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Who may use the viewer and the read API when the emulator listens beyond loopback: a request
 * with a valid project API key, or a browser holding the session cookie, which the one-time
 * login link (`/?login=...`, printed in the banner) sets.
 */
export class ReadAccess {
  private loginToken: string | undefined = randomBytes(24).toString("base64url");
  private readonly session = randomBytes(32).toString("base64url");

  /** The login token of the one-time link; undefined once it was used. */
  get pendingLogin(): string | undefined {
    return this.loginToken;
  }

  /**
   * Spends the one-time token; returns the `Set-Cookie` value, or 403 when the token is wrong
   * or already used.
   */
  login(token: string): string {
    if (this.loginToken === undefined || !equal(token, this.loginToken)) {
      throw new HttpError(403, "this login link is unknown or was already used; restart the emulator for a new one, or send the project API key");
    }
    this.loginToken = undefined;
    return `${SESSION_COOKIE}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** 401 unless the request carries the session cookie or `keyIsValid` accepts its key. */
  check(cookieHeader: string | undefined, presentedKey: string | undefined, keyIsValid: (key: string) => boolean): void {
    const held = cookie(cookieHeader, SESSION_COOKIE);
    if (held !== undefined && equal(held, this.session)) return;
    if (presentedKey !== undefined && keyIsValid(presentedKey)) return;
    throw new HttpError(401, "this emulator listens beyond loopback: the viewer and the read API need the project API key (header) or the session of the one-time login link printed at startup");
  }
}
