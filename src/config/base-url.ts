/**
 * What a base URL that cannot be used was probably meant to be, and how a usable one can still
 * be wrong: the SDK adds `/v1/...` itself, so an address ending in `/v1` sends to `/v1/v1/...`.
 */

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i;

/**
 * The address a value that is not an http(s) URL was probably meant as: `localhost:4680` →
 * `http://localhost:4680`, `api.example.com` → `https://api.example.com`, `htp://host` →
 * `http://host`; undefined when nothing sensible can be guessed.
 */
export function guessBaseUrl(value: string): string | undefined {
  const trimmed = value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.+)$/i.exec(trimmed);
  if (scheme) {
    const rest = scheme[2]!;
    // A mistyped scheme (`htp://`, `https//` aside): keep the rest, pick the scheme by the host.
    return `${LOOPBACK.test(rest) ? "http" : "https"}://${rest}`;
  }
  if (!/^[a-z0-9.[\]:-]+(\/\S*)?$/i.test(trimmed) || trimmed.length === 0) return undefined;
  return `${LOOPBACK.test(trimmed) ? "http" : "https"}://${trimmed}`;
}

/** The fix for an unusable base URL, naming the value to set. */
export function baseUrlFix(variable: string, value: string): string {
  const guess = guessBaseUrl(value);
  return guess ? `set ${variable}=${guess} (with http:// or https://), or unset it for the default` : `set ${variable} to an http(s) URL such as http://127.0.0.1:4680, or unset it for the default`;
}

/**
 * Whether a usable base URL ends in `/v1` (the API's version, which the SDK adds itself), and
 * the address meant without it.
 */
export function versionSuffix(baseUrl: string): string | undefined {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return /\/v1$/i.test(trimmed) ? trimmed.slice(0, -3) || undefined : undefined;
}

/** The warning for a base URL ending in `/v1`. */
export function versionSuffixWarning(baseUrl: string, without: string): string {
  return `the base URL ${baseUrl} ends in /v1, but evaltrace adds /v1/... to every path itself (requests would go to ${baseUrl}/v1/traces): set it to ${without}`;
}
