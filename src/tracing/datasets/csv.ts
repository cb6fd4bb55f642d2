/**
 * CSV (RFC 4180: quoted fields with doubled quotes, CRLF or LF line ends) → examples, for the
 * SDK's `uploadCsv`: the header names the columns; `input_keys` become each example's inputs,
 * `output_keys` its outputs, every cell a string (as LangSmith stores them). Pure.
 */
import type { Json } from "./rules.js";

export class CsvError extends Error {}

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte order mark
  const endField = () => {
    row.push(field);
    field = "";
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === "")) rows.push(row); // blank lines carry no example
    row = [];
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") endField();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else field += c;
  }
  if (quoted) throw new CsvError("a quoted field is not closed");
  if (field !== "" || row.length) endRow();
  return rows;
}

/** The examples of a CSV: inputs and outputs from the named columns of each row after the header. */
export function csvExamples(text: string, inputKeys: string[], outputKeys: string[]): { inputs: Json; outputs: Json | null }[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new CsvError("the file is empty: it needs a header row");
  const missing = [...inputKeys, ...outputKeys].filter((k) => !header.includes(k));
  if (missing.length) throw new CsvError(`columns not in the header: ${missing.join(", ")}`);
  const pick = (row: string[], keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[header.indexOf(k)] ?? ""]));
  return rows.map((row, n) => {
    if (row.length !== header.length) throw new CsvError(`row ${n + 2} has ${row.length} fields, the header ${header.length}`);
    return { inputs: pick(row, inputKeys), outputs: outputKeys.length ? pick(row, outputKeys) : null };
  });
}
