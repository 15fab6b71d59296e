import { InputError } from "./input-error.js";

/** One CSV record and the line of the file it starts on (1-based; a quoted field may span lines). */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * Parses RFC 4180 CSV: quoted fields, doubled quotes, commas and newlines inside quotes. Blank
 * records are dropped. `file` names the file in errors.
 */
export function parseCsv(text: string, file: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let quoteLine = 1;
  const endRow = () => {
    row.push(field);
    if (row.some((cell) => cell !== "")) records.push({ cells: row, line: rowLine });
    row = [];
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") line++;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") {
      quoted = true;
      quoteLine = line;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") {
        i++;
        line++;
      }
      endRow();
      rowLine = line;
    } else field += c;
  }
  if (quoted) throw new InputError(`${file} line ${quoteLine}: a quoted field opens here and is never closed (a missing closing ")`);
  if (field !== "" || row.length > 0) endRow();
  return records;
}

/**
 * A hint when a file looks separated by semicolons (as spreadsheets save CSV in many locales):
 * a one-column header holding `;`.
 */
export function semicolonHint(header: string[]): string | undefined {
  if (header.length !== 1 || !header[0]!.includes(";")) return undefined;
  return `the header "${header[0]!.slice(0, 60)}" is one column with semicolons in it: the file looks semicolon-separated; save it comma-separated (e.g. "CSV UTF-8 (comma delimited)") and push again`;
}
