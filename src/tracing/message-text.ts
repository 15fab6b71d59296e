/**
 * The text of a chat message's content, whatever the SDK's shape: a string as it is; a list of
 * parts as the parts' `text` joined (other parts as JSON); anything else as JSON; nothing as "".
 */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && "text" in part ? String((part as { text: unknown }).text) : JSON.stringify(part))).join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}
