/** One parsed server-sent event: its `event:` name (if any) and its `data:` parsed as JSON (or the raw text). */
export interface ParsedEvent {
  event?: string;
  data: unknown;
}

/** Reads a whole `text/event-stream` response into events (blank-line separated, `event:` and `data:` fields). */
export async function readSse(res: Response): Promise<ParsedEvent[]> {
  const text = await res.text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      const raw = data.join("\n");
      let parsed: unknown = raw;
      try {
        parsed = JSON.parse(raw);
      } catch {
        // not JSON, e.g. [DONE]
      }
      return event === undefined ? { data: parsed } : { event, data: parsed };
    });
}

/** POSTs `body` as JSON. */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** The JSON body of `res`, as the wire shape the test expects. */
export const readJson = async <T>(res: Response): Promise<T> => (await res.json()) as T;
