import { randomBytes } from "node:crypto";
import { HttpError } from "./http-error.js";
import type { KeyRecord, State } from "./store/store.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A new key value: `svc_<region>_org_...` or `svc_<region>_proj_...` (spec 2.1). */
export function newKeyValue(region: string, scope: KeyRecord["scope"]): string {
  return `svc_${region}_${scope === "org" ? "org" : "proj"}_${randomBytes(24).toString("base64url")}`;
}

/** Fifteen asterisks followed by the last six characters (spec 2.1). */
export function mask(value: string): string {
  return `${"*".repeat(15)}${value.slice(-6)}`;
}

/** Applies what time did: a pending rotation whose `rotatesAt` passed completes. */
export function settle(key: KeyRecord, now: number): void {
  if (key.rotatesAt !== null && now >= key.rotatesAt && key.shadowValue) {
    key.retired.push(key.value);
    key.value = key.shadowValue;
    key.shadowValue = null;
    key.rotatesAt = null;
  }
}

export function isExpired(key: KeyRecord, now: number): boolean {
  return key.expiresAt !== null && now >= key.expiresAt;
}

/** Whether `value` is a live project key (its value, or the new one of a pending rotation). */
export function isProjectKey(state: State, value: string, now: number): boolean {
  return state.keys.some((k) => {
    settle(k, now);
    return k.scope === "project" && k.valid && !isExpired(k, now) && (k.value === value || k.shadowValue === value);
  });
}

/** Creates a key. */
export function createKey(
  state: State,
  region: string,
  now: number,
  options: { scope: KeyRecord["scope"]; name?: string | null; expiresInDays?: number | null },
): KeyRecord {
  const key: KeyRecord = {
    id: state.keys.reduce((m, k) => Math.max(m, k.id), 0) + 1,
    name: options.name ?? null,
    scope: options.scope,
    valid: true,
    value: newKeyValue(region, options.scope),
    shadowValue: null,
    rotatesAt: null,
    expiresAt: options.expiresInDays == null ? null : now + options.expiresInDays * DAY,
    createdAt: now,
    lastUsed: null,
    retired: [],
  };
  state.keys.push(key);
  return key;
}

/** Outcome of authenticating a request. */
export interface AuthResult {
  key: KeyRecord;
  /** Headers for requests made with the old value during a grace period (spec 4.1). */
  headers: Record<string, string>;
}

/**
 * Authenticates a presented value for an endpoint of `scope` (spec 5): unknown, superseded,
 * deactivated and expired values are rejected with 401; a key of the other scope with 403.
 */
export function authenticate(state: State, presented: string | undefined, scope: KeyRecord["scope"], now: number, header: string, inMemory = false): AuthResult {
  if (!presented) throw new HttpError(401, `missing ${header} header`);
  for (const key of state.keys) settle(key, now);
  const key = state.keys.find((k) => k.value === presented || k.shadowValue === presented);
  if (!key) {
    if (state.keys.some((k) => k.retired.includes(presented))) {
      throw new HttpError(401, "this API key value was superseded by a rotation; use the new value");
    }
    // The likeliest cause on an emulator without --data: it restarted and made new keys.
    throw new HttpError(
      401,
      inMemory
        ? "unknown API key: did the emulator restart? Its keys live as long as its process unless it runs with --data FILE; take the project key from its banner"
        : "unknown API key: take the project key from the emulator's banner",
    );
  }
  if (!key.valid) throw new HttpError(401, "this API key is deactivated");
  if (isExpired(key, now)) throw new HttpError(401, `this API key expired at ${new Date(key.expiresAt!).toISOString()}`);
  if (key.scope !== scope) {
    throw new HttpError(
      403,
      scope === "org"
        ? "this endpoint takes an organization API key (svc_<region>_org_...); a project key was given"
        : "this endpoint takes a project API key (svc_<region>_proj_...); an organization key was given",
    );
  }
  key.lastUsed = now;
  const headers: Record<string, string> = {};
  if (key.rotatesAt !== null && presented === key.value) {
    const at = new Date(key.rotatesAt);
    headers.Sunset = at.toUTCString();
    headers["X-Api-Key-Warning"] = `This API key value is being rotated and stops working at ${at.toISOString()}; switch to the new value.`;
  }
  return { key, headers };
}

/** The key as responses show it: secrets masked unless `reveal` names them. */
export function keyView(key: KeyRecord, reveal: { value?: boolean; shadowValue?: boolean } = {}) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: key.id,
    name: key.name,
    valid: key.valid,
    value: reveal.value ? key.value : mask(key.value),
    shadowValue: key.shadowValue === null ? null : reveal.shadowValue ? key.shadowValue : mask(key.shadowValue),
    rotatesAt: iso(key.rotatesAt),
    expiresAt: iso(key.expiresAt),
    created_at: new Date(key.createdAt).toISOString(),
    lastUsed: iso(key.lastUsed),
  };
}

/** Rotation (spec 3.1, 4.1). */
export function rotate(key: KeyRecord, region: string, now: number, body: { gracePeriodInHours?: number; expiresInDays?: number | null }) {
  settle(key, now);
  const grace = body.gracePeriodInHours ?? 0;
  const expired = isExpired(key, now);
  if (expired) {
    if (body.expiresInDays === undefined || body.expiresInDays === null) {
      throw new HttpError(400, "body.expiresInDays is required to rotate an expired key (spec 4.1 rule 3)");
    }
    if (grace > 0) throw new HttpError(400, "body.gracePeriodInHours must be 0 when rotating an expired key (spec 4.1 rule 3)");
  }
  if (key.rotatesAt !== null) {
    throw new HttpError(409, `a rotation of key ${key.id} is already pending until ${new Date(key.rotatesAt).toISOString()}`);
  }
  const expiresAt =
    body.expiresInDays === undefined ? key.expiresAt : body.expiresInDays === null ? null : now + body.expiresInDays * DAY;
  if (grace > 0 && expiresAt !== null && now + grace * HOUR > expiresAt) {
    throw new HttpError(
      400,
      `body.gracePeriodInHours: a grace period of ${grace} h would extend past the key's expiration at ${new Date(expiresAt).toISOString()} (spec 8)`,
    );
  }
  const fresh = newKeyValue(region, key.scope);
  key.expiresAt = expiresAt;
  if (grace === 0) {
    key.retired.push(key.value);
    key.value = fresh;
    return keyView(key, { value: true });
  }
  key.shadowValue = fresh;
  key.rotatesAt = now + grace * HOUR;
  return keyView(key, { shadowValue: true });
}
