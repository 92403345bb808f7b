// Text cells a spreadsheet program would run as a formula (CSV injection): a CSV the CLI writes
// starts such a cell with `'`, as OWASP advises, and an import reads the `'` back off, so a worker
// named `=1+1` is exported as `'=1+1`, shown as text, and re-imported as `=1+1` (docs/cli.md).

/** `=`, `+`, `-`, `@`, tab or CR after any `'` already there: `'=x` is escaped too, so it comes back as written. */
const RUNS = /^'*[=+\-@\t\r]/;
const ESCAPED = /^'+[=+\-@\t\r]/;
/** A plain number is shown as a number, never run: `-12.50` stays as it is. */
const NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** The cell as a CSV for spreadsheets carries it. */
export const escapeFormula = (text: string): string =>
  RUNS.test(text) && !NUMBER.test(text) ? `'${text}` : text;

/** The cell as it was before escapeFormula. */
export const unescapeFormula = (text: string): string =>
  text.charCodeAt(0) === APOSTROPHE && ESCAPED.test(text) && !NUMBER.test(text.slice(1))
    ? text.slice(1)
    : text;

const APOSTROPHE = 39;
