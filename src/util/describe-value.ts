/**
 * A value as an error message names what it got: a string quoted (cut at 40 characters), "an
 * object", "an array", "a function", "null", anything else as `String()` writes it.
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === "symbol" || typeof value === "bigint") return value.toString();
  if (typeof value === "function") return "a function";
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}
