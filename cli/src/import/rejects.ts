// The --rejects file: every rejected row with its original columns plus an `error` column, as CSV,
// ready to fix and import again.
import { writeFileSync } from "node:fs";
import { csvLine } from "../output.ts";

export class RejectsFile {
  readonly #rows: { values: Record<string, unknown>; error: string }[] = [];

  constructor(readonly file: string | undefined) {}

  add(values: Record<string, unknown>, error: string): void {
    if (this.file) this.#rows.push({ values, error });
  }

  /** Written once at the end: the columns are every field any rejected row had, in order of appearance. */
  write(): void {
    if (!this.file) return;
    const columns = [...new Set(this.#rows.flatMap((row) => Object.keys(row.values)))];
    const lines = [csvLine([...columns, "error"]), ...this.#rows.map((row) => csvLine([...columns.map((column) => row.values[column] ?? ""), row.error]))];
    writeFileSync(this.file, lines.join(""));
  }
}
