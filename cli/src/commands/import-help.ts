// What `erp import --help` says: the import's rules in a few paragraphs, and examples.

export const IMPORT_SUMMARY =
  "create (or --upsert, or --update by id) records from a CSV, NDJSON or Excel (.xlsx) file " +
  "(or stdin), exactly once";

export const IMPORT_DESCRIPTION = [
  "Creates one record per row, in batches in file order (the first of two rows with the same unique value wins).",
  "CSV: a header line names the fields; its delimiter (comma, semicolon or tab, as European " +
    "spreadsheet programs save CSV) is the one it uses most, or --delimiter. A cell written " +
    "'=1+1 (a leading ' keeps spreadsheets from running =, +, -, @ as a formula; erp export " +
    "writes such cells so) is read as =1+1. A header matches a field after trimming, case folding " +
    'and turning spaces and hyphens into _ ("Phone Number" is phone_number), by its name or an ' +
    'alias the API declares (phone_number is phone, e_mail is email); --map "Header=field" maps ' +
    "any other. The header is checked before anything is sent: a column that matches nothing " +
    "stops the import (exit 2) naming the closest field, unless it is left out by " +
    "--skip-column or --skip-unknown-columns. The columns trade, category, client, project (any " +
    "*_id field without _id) may name the record, by name or external_id (a name that names " +
    "nothing is a rejected row naming the closest names); --create-missing trade,category " +
    "creates the trades and categories the company lacks, each once, before the first row that " +
    "needs it (a dry-run lists them). The id, created_at, " +
    "updated_at and deleted_at columns of an export and a rejects file's error column are " +
    "skipped.",
  "--update: each row updates the record its id column names (an export's file, edited), " +
    "sending only the cells that differ from the record (an empty cell empties the field); rows " +
    "equal to their record are unchanged and not sent; --if-unmodified refuses (412) the rows " +
    "whose record changed since the export, by their updated_at column.",
  "Values as spreadsheets write them: cells are trimmed, and an empty cell is left out. " +
    "Amounts and numbers may carry thousands separators (1,250.50, 1 250.50, 1'250.50) and a " +
    "currency symbol or code (€45, 45 EUR, $1,200): the symbol is dropped, but it must agree " +
    "with the row's currency where the record has one (a row without a currency takes the " +
    "amounts'). With --decimal-comma the comma is the decimal mark (1.250,50). Dates are " +
    "YYYY-MM-DD, or the layout --date-format names (DD.MM.YYYY, DD/MM/YYYY, MM/DD/YYYY, " +
    "YYYY/MM/DD, YY for two-digit years, any of . / - between the parts): day-first and " +
    "month-first are never guessed. Booleans are true/false, yes/no or 1/0, in any case. " +
    "NDJSON: one JSON object a line, sent as it is.",
  "XLSX: the first sheet (or --sheet NAME), its first non-empty row the header; cells are read " +
    "as the sheet holds them, not as it displays them: a date cell is a date, a number a number " +
    "(in the currency its format shows, if any), a text cell its text (leading zeros kept), a " +
    "formula its saved value. A workbook is read within Excel's limits (1,048,576 rows, 16,384 " +
    "columns, 32,767 characters a cell) and each part of it may unpack to 1 GiB and 100 times " +
    "the file's size at most: past one, or damaged, it is refused (exit 2). Other binary files " +
    "(a PDF, an image, an .xlsx renamed .csv) are refused before anything is sent.",
  "A row's problems are reported at once: the cells the CLI cannot read or names that match " +
    "no record, together with the API's checks of the rest of the row (a dry-run: such a row is " +
    "never written). Empty lines and rows of empty cells are counted as blank; a row equal in " +
    "every cell to an earlier one is counted as repeated and listed in --report, and still " +
    "imported unless --skip-repeated. A unique value (an external_id) given twice rejects the " +
    "second row, naming the row and line of the first.",
  "Exactly once: each row carries a key made from its content and its occurrence among " +
    "identical rows (never its batch or position), so after Ctrl-C, a crash, a dropped " +
    "connection or a lost journal the same command writes no row twice. A journal (under " +
    "$XDG_STATE_HOME/erp/imports) spares re-sending rows that went through. The import paces " +
    "itself by the RateLimit headers, waits out 429s and retries other failures for about a " +
    "minute. A full quota, a refused token or Ctrl-C stop it (Ctrl-C prints the summary and " +
    'exits 130; a second Ctrl-C quits at once); the rows not sent are "not imported" (a re-run ' +
    "sends them), not rejects. Exit 3 when rows were rejected: --rejects writes them with the " +
    "file's own columns and values plus an error column, to fix and import again as they are, " +
    "with the same flags (its delimiter is the file's; a workbook's numbers are written with the " +
    "decimal mark --decimal-comma reads).",
].join("\n\n");

export const IMPORT_EXAMPLES = `
EXAMPLES
  erp import workers staff.csv --rejects fix-me.csv
  erp import workers staff.xlsx --sheet Crew --rejects fix-me.xlsx
  erp import workers fix-me.csv     # after fixing the rows; its error column is ignored
  erp import workers hr.csv --date-format DD.MM.YYYY --decimal-comma   # ; as saved in Germany
  erp import workers crew.xlsx --create-missing trade --dry-run   # lists the trades it would create
  erp import workers hr-export.csv --map "Employee No=external_id" --skip-column Notes
  erp export projects --format csv > p.csv && erp import projects p.csv --upsert
  erp export workers --format csv > w.csv   # edit it in a spreadsheet, then:
  erp import workers w.csv --update --if-unmodified
  erp import clients clients.ndjson --dry-run`;
