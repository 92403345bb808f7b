// Reads the CSV files the CLI writes (rejects, exports) in tests: RFC 4180 quoting, CRLF or LF.

/** Every record's cells; a leading BOM is dropped, a last line break ends the last record. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (quoted) {
      if (char !== '"') cell += char;
      else if (body[i + 1] === '"') cell += body[++i];
      else quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      cells.push(cell);
      cell = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && body[i + 1] === "\n") i++;
      records.push([...cells, cell]);
      cells = [];
      cell = "";
    } else cell += char;
  }
  if (cell !== "" || cells.length > 0) records.push([...cells, cell]);
  return records;
}
