import { ascii } from "./json-bytes.js";

/**
 * The keys that traces and spans both write before a uuid or a time, as bytes, one copy of each:
 * the byte writer keeps what it made for the last keys it wrote a uuid or a time with (the key
 * with a trace's first digits, with a second's date), by the key's identity.
 */
export const OPEN_UUID = ascii('{"uuid":');
export const START_TIME = ascii(',"startTime":');
export const END_TIME = ascii(',"endTime":');
export const PARENT_UUID = ascii(',"parentUuid":');
