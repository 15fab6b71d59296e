import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parseCsv, semicolonHint } from "./csv.js";
import { InputError } from "./input-error.js";

export { InputError } from "./input-error.js";

/** Goldens read from a file, with where each came from (for error messages). */
export interface ReadGoldens {
  goldens: Record<string, unknown>[];
  /** `where[i]` names the line or row of golden i, e.g. "line 4". */
  where: string[];
}

/** How a CSV cell of a known golden column is read; any other column becomes a custom column. */
type CellReader = (cell: string, where: string) => unknown;

const asList: CellReader = (cell, where) => (cell.startsWith("[") ? parseJson(cell, where) : cell.split("|").map((s) => s.trim()));
const asJson: CellReader = (cell, where) => parseJson(cell, where);
const asText: CellReader = (cell) => cell;
const asNumber: CellReader = (cell, where) => {
  const n = Number(cell);
  if (cell.trim() === "" || Number.isNaN(n)) throw new InputError(`${where}: "${cell.slice(0, 40)}" is not a number`);
  return n;
};

/** Golden columns and how their cells are read. */
const columnReaders: Readonly<Record<string, CellReader>> = {
  context: asList,
  retrievalContext: asList,
  tags: asList,
  additionalMetadata: asJson,
  customColumnKeyValues: asJson,
  toolsCalled: asJson,
  expectedTools: asJson,
  turns: asJson,
  imagesMapping: asJson,
  tokenCost: asNumber,
  inputTokenCount: asNumber,
  outputTokenCount: asNumber,
  input: asText,
  actualOutput: asText,
  expectedOutput: asText,
  comments: asText,
  sourceFile: asText,
  scenario: asText,
  expectedOutcome: asText,
  userDescription: asText,
};

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "it is a directory" : e.message;
    throw new InputError(`cannot read ${file}: ${why}`);
  }
}

/** Reads goldens from `.json` (a list or `{goldens}`), `.jsonl` (one per line) or `.csv` (a header row). */
export function readGoldens(file: string): ReadGoldens {
  const ext = extname(file).toLowerCase();
  const reader = Object.hasOwn(goldenReaders, ext) ? goldenReaders[ext] : undefined;
  if (!reader) throw new InputError(`${file}: unsupported file type "${ext}"; use .json, .jsonl or .csv`);
  return reader(readText(file), file);
}

/** Readers of golden files by extension. */
const goldenReaders: Readonly<Record<string, (text: string, file: string) => ReadGoldens>> = {
  ".json": (text, file) => {
    const parsed = parseJson(text, file);
    const list = Array.isArray(parsed) ? parsed : (parsed as { goldens?: unknown } | null)?.goldens;
    if (!Array.isArray(list)) throw new InputError(`${file}: expected a list of goldens or an object with "goldens"`);
    return { goldens: list as Record<string, unknown>[], where: list.map((_, i) => `item ${i}`) };
  },
  ".jsonl": (text, file) => {
    const goldens: Record<string, unknown>[] = [];
    const where: string[] = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      goldens.push(parseJson(line, `${file} line ${i + 1}`) as Record<string, unknown>);
      where.push(`line ${i + 1}`);
    });
    return { goldens, where };
  },
  ".csv": (text, file) => csvGoldens(text, file),
};

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${where}: not valid JSON (${(err as Error).message})`);
  }
}

/** "row 3" (the spreadsheet's row: the header is row 1), with the line when a quoted field spans lines. */
function rowName(file: string, row: number, line: number): string {
  return `${file} row ${row}${line === row ? "" : ` (line ${line})`}`;
}

function csvGoldens(text: string, file: string): ReadGoldens {
  const [head, ...body] = parseCsv(text.replace(/^\uFEFF/, ""), file);
  if (!head) throw new InputError(`${file}: empty CSV; the first row names the columns (input, expectedOutput, ...)`);
  const header = head.cells.map((c) => c.trim());
  const hint = semicolonHint(header);
  if (hint) throw new InputError(`${file}: ${hint}`);
  const seen = new Set<string>();
  for (const [c, column] of header.entries()) {
    if (column === "") throw new InputError(`${file} row 1: column ${c + 1} has no name`);
    if (seen.has(column)) throw new InputError(`${file} row 1: column "${column}" appears twice`);
    seen.add(column);
  }
  const goldens = body.map((record, r) => {
    const row = rowName(file, r + 2, record.line);
    if (record.cells.length > header.length) {
      throw new InputError(`${row}: ${record.cells.length} cells but the header names ${header.length} columns (a comma inside an unquoted cell? quote it)`);
    }
    const golden: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    header.forEach((column, c) => {
      const cell = record.cells[c] ?? "";
      if (cell === "") return;
      const read = Object.hasOwn(columnReaders, column) ? columnReaders[column] : undefined;
      if (read) golden[column] = read(cell, `${row}, column ${column}`);
      else custom[column] = cell;
    });
    if (Object.keys(custom).length > 0) golden.customColumnKeyValues = { ...custom, ...(golden.customColumnKeyValues as object | undefined) };
    return golden;
  });
  return { goldens, where: body.map((record, r) => rowName("", r + 2, record.line).trim()) };
}

/** Reads a prompt: JSON (a push body, or a list of messages) or plain text. */
export function readPrompt(file: string): Record<string, unknown> {
  const text = readText(file);
  if (extname(file).toLowerCase() !== ".json") return { text };
  const parsed = parseJson(text, file);
  if (Array.isArray(parsed)) return { messages: parsed };
  if (parsed === null || typeof parsed !== "object") throw new InputError(`${file}: expected a prompt object or a list of messages`);
  return parsed as Record<string, unknown>;
}
