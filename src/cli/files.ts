import { readFileSync } from "node:fs";
import { extname } from "node:path";

/** Goldens read from a file, with where each came from (for error messages). */
export interface ReadGoldens {
  goldens: Record<string, unknown>[];
  /** `where[i]` names the line or row of golden i, e.g. "line 4". */
  where: string[];
}

const listColumns = new Set(["context", "retrievalContext", "tags"]);
const jsonColumns = new Set(["additionalMetadata", "customColumnKeyValues", "toolsCalled", "expectedTools", "turns", "imagesMapping"]);
const numberColumns = new Set(["tokenCost", "inputTokenCount", "outputTokenCount"]);
const textColumns = new Set(["input", "actualOutput", "expectedOutput", "comments", "sourceFile", "scenario", "expectedOutcome", "userDescription"]);

/** A user-facing input problem: the CLI prints it and exits 1. */
export class InputError extends Error {}

/** Reads goldens from `.json` (a list or `{goldens}`), `.jsonl` (one per line) or `.csv` (a header row). */
export function readGoldens(file: string): ReadGoldens {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const ext = extname(file).toLowerCase();
  if (ext === ".json") {
    const parsed = parseJson(text, file);
    const list = Array.isArray(parsed) ? parsed : (parsed as { goldens?: unknown })?.goldens;
    if (!Array.isArray(list)) throw new InputError(`${file}: expected a list of goldens or an object with "goldens"`);
    return { goldens: list as Record<string, unknown>[], where: list.map((_, i) => `item ${i}`) };
  }
  if (ext === ".jsonl") {
    const goldens: Record<string, unknown>[] = [];
    const where: string[] = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      goldens.push(parseJson(line, `${file} line ${i + 1}`) as Record<string, unknown>);
      where.push(`line ${i + 1}`);
    });
    return { goldens, where };
  }
  if (ext === ".csv") return csvGoldens(text, file);
  throw new InputError(`${file}: unsupported file type "${ext}"; use .json, .jsonl or .csv`);
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${where}: not valid JSON (${(err as Error).message})`);
  }
}

/** Parses RFC 4180 CSV: quoted fields, doubled quotes, commas and newlines inside quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (quoted) throw new InputError("CSV: a quoted field is not closed");
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell !== ""));
}

function csvGoldens(text: string, file: string): ReadGoldens {
  const rows = parseCsv(text.replace(/^\uFEFF/, ""));
  const [header, ...body] = rows;
  if (!header) throw new InputError(`${file}: empty CSV`);
  const goldens = body.map((cells, r) => {
    const golden: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    header.forEach((column, c) => {
      const cell = cells[c] ?? "";
      if (cell === "") return;
      const where = `${file} row ${r + 2}, column ${column}`;
      if (listColumns.has(column)) golden[column] = cell.startsWith("[") ? parseJson(cell, where) : cell.split("|").map((s) => s.trim());
      else if (jsonColumns.has(column)) golden[column] = parseJson(cell, where);
      else if (numberColumns.has(column)) {
        const n = Number(cell);
        if (Number.isNaN(n)) throw new InputError(`${where}: "${cell}" is not a number`);
        golden[column] = n;
      } else if (textColumns.has(column)) golden[column] = cell;
      else custom[column] = cell;
    });
    if (Object.keys(custom).length > 0) golden.customColumnKeyValues = { ...custom, ...(golden.customColumnKeyValues as object | undefined) };
    return golden;
  });
  return { goldens, where: body.map((_, r) => `row ${r + 2}`) };
}

/** Reads a prompt: JSON (a push body, or a list of messages) or plain text. */
export function readPrompt(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (extname(file).toLowerCase() !== ".json") return { text };
  const parsed = parseJson(text, file);
  if (Array.isArray(parsed)) return { messages: parsed };
  if (parsed === null || typeof parsed !== "object") throw new InputError(`${file}: expected a prompt object or a list of messages`);
  return parsed as Record<string, unknown>;
}
