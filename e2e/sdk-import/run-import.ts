// Run under Node (bundled) and Deno (as is) by e2e/sdk-import.test.ts: the SDK's import() of the
// rows, aborted by its signal midway, then the same rows again with the same journal. Prints one
// JSON line: each run's summary, and the rows (by number) of each status of the second run.
import { ErpClient, type ImportSummary, MemoryJournal } from "../../sdk/mod.ts";
import { ROWS, rows, type WorkerRow } from "./rows.ts";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;
const erp = new ErpClient({ baseUrl: env?.ERP_BASE_URL ?? "", token: env?.ERP_TOKEN ?? "" });
const abortAfter = Number(env?.ABORT_AFTER ?? ROWS / 2);
const journal = new MemoryJournal();
const numberOf = (row: WorkerRow): number => Number(row.name.split(" ")[1]);

const controller = new AbortController();
const first = erp.workers.import(rows(), { journal, signal: controller.signal });
let results = 0;
for await (const _ of first) if (++results === abortAfter) controller.abort();
const aborted: ImportSummary = first.summary;

const byStatus: Record<string, number[]> = {};
const second = erp.workers.import(rows(), { journal });
for await (const result of second) {
  byStatus[result.status] ??= [];
  byStatus[result.status]!.push(numberOf(result.row));
  if (result.status === "rejected" && result.error?.errors[0]?.field !== "email")
    throw new Error(`row ${numberOf(result.row)} rejected for ${JSON.stringify(result.error)}`);
}
const { error: _, ...again } = second.summary;
const { error: __, ...first_ } = aborted;
console.log(JSON.stringify({ runtime: runtime(), first: first_, second: again, byStatus }));

function runtime(): string {
  const global = globalThis as { Deno?: unknown; Bun?: unknown };
  return global.Deno ? "deno" : global.Bun ? "bun" : "node";
}
