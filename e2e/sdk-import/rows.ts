// The rows the SDK import test imports (from Node and Deno) and the CLI re-imports as NDJSON:
// every 50th row has an email the API refuses.
export const ROWS = 20_000;

export const isBad = (n: number): boolean => n % 50 === 0;

export interface WorkerRow {
  name: string;
  email: string;
  hourly_rate: string;
}

/** Row n (1-based). */
export const row = (n: number): WorkerRow => ({
  name: `Imported ${n}`,
  email: isBad(n) ? `imported${n}(at)example.com` : `imported${n}@example.com`,
  hourly_rate: `${(n % 90) + 10}.50`,
});

/** The rows, one at a time, as a stream of parsed lines would give them. */
export async function* rows(): AsyncGenerator<WorkerRow> {
  for (let n = 1; n <= ROWS; n++) yield row(n);
}
