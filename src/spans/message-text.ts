import { toText } from "./serialize.js";

/**
 * The text of a chat message's content, whatever the SDK's shape: a string as it is; a list of
 * parts as the parts' `text` joined (other parts as JSON); anything else as JSON; nothing as "".
 * Never throws (circular or BigInt content included): integrations call it on the app's own
 * call path. Objects become JSON through `toText`, so they are bounded too.
 */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && "text" in part ? textOfPart((part as { text: unknown }).text) : json(part))).join("");
  }
  return content === undefined || content === null ? "" : json(content);
}

function json(value: unknown): string {
  if (value !== null && typeof value === "object") return toText(value);
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return textOfPart(value);
  }
}

function textOfPart(text: unknown): string {
  try {
    return String(text);
  } catch {
    return "";
  }
}
