// The custom-fields leg of `bun run bench`: a company of 1,000,000 workers, each holding a value of
// its five custom fields (text, select, date, integer, money; docs/custom-fields.md), and what the
// company's own fields cost beside built-in ones, side by side: the first page filtered by the select
// (`cf.crew=…`, with its total) against the same filter on `trade_id` (one of 9 trades, as one of 9
// crews); the page at 99% of `sort=cf.cert_expires_on` against `sort=hired_on` (each cursor reached
// by following meta.next_cursor, as an app pages); `POST /v1/workers` with the five values against
// without (autocannon, rounds taking turns); `erp import workers` of 500 rows with five custom
// columns against without. Goals: ≤ 1.5×, ≤ 1.5×, ≤ 1.3×, ≥ 0.7×. The fields are made through the
// API; the workers and their rows of the typed index `custom_field_values` are seeded straight into
// the database as the API stores them, which the leg checks against records the API made first.
// Alone: `bun bench/custom-fields.ts [--quick]`, on a throw-away database.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { createCompany, recountLiveRecords, type DatabaseHandle } from "@erp/server/admin";
import { runLegAlone } from "./throw-away-database.ts";
import { pageLatencies, spawnCli } from "./timing.ts";

const SEED_ROWS_PER_INSERT = 5_000;
/** Index rows copied per INSERT … SELECT: one transaction's undo stays small. */
const INDEX_IDS_PER_COPY = 250_000;
const IMPORT_ROWS = 500;
const CONNECTIONS = 32;

export interface CustomFieldSizes {
  workers: number;
  /** Timed requests per page (after a few untimed ones). */
  requests: number;
  /** Rounds of creates (autocannon) and of imports, each side once a round. */
  rounds: number;
  createSeconds: number;
}

export const CUSTOM_FIELD_SIZES: Record<"full" | "quick", CustomFieldSizes> = {
  full: { workers: 1_000_000, requests: 50, rounds: 5, createSeconds: 4 },
  quick: { workers: 5_000, requests: 10, rounds: 1, createSeconds: 1 },
};

/** The company's five fields, made through the API in this order (the order records show them in). */
const CREWS = Array.from({ length: 9 }, (_, i) => `Crew ${i + 1}`);
const FIELDS = [
  { key: "badge", label: "Badge", type: "text" },
  { key: "crew", label: "Crew", type: "select", options: { choices: CREWS } },
  { key: "cert_expires_on", label: "Certificate expires on", type: "date" },
  { key: "shoe_size", label: "Shoe size", type: "integer" },
  { key: "allowance", label: "Allowance", type: "money" },
] as const;

const DAY_MS = 86_400_000;
const HIRED_FROM = Date.UTC(2016, 0, 1);
const CERTS_FROM = Date.UTC(2026, 0, 1);
const day = (from: number, days: number): string =>
  new Date(from + days * DAY_MS).toISOString().slice(0, 10);

/** Worker i's custom values, as the API stores them (money as its two-decimal text). */
const customValues = (i: number) => ({
  badge: `B-${i}`,
  crew: CREWS[(i * 4) % CREWS.length]!,
  // Spread over five years and through the id order, as hire dates are.
  cert_expires_on: day(CERTS_FROM, (i * 6151) % 1826),
  shoe_size: 36 + (i % 14),
  allowance: `${10 + (i % 90)}.${String((i * 7) % 100).padStart(2, "0")}`,
});

/** Worker i's built-in fields: its trade one of the 9 seeded, as its crew is one of 9. */
const builtIn = (i: number, tradeIds: readonly number[]) => ({
  name: `Custom worker ${i}`,
  email: `custom${i}@example.com`,
  trade_id: tradeIds[i % tradeIds.length]!,
  hired_on: day(HIRED_FROM, (i * 7919) % 3652),
});

export interface PagePair {
  /** Median and p99 ms of the custom-field page and of the built-in one. */
  custom: { medianMs: number; p99Ms: number };
  builtIn: { medianMs: number; p99Ms: number };
  ratio: number;
}

export interface CustomFieldsResult {
  workers: number;
  /** Seconds seeding took: the workers' rows, then their rows of custom_field_values. */
  seed: { workersSeconds: number; indexSeconds: number };
  /** `cf.crew=…` against `trade_id=…`, first page with its total (the goal), and without it. */
  filterFirstPage: PagePair;
  filterFirstPageNoTotal: PagePair;
  /** `sort=cf.cert_expires_on` against `sort=hired_on`: the page at 99% (the goal) and the first. */
  sortedDeepPage: PagePair;
  sortedFirstPage: PagePair;
  /** Pages and seconds each walk to 99% took (custom, built-in). */
  walks: { pages: number; customSeconds: number; builtInSeconds: number };
  /** Creates per second, medians of the rounds; statements per create; the ratio without/with. */
  create: {
    withRps: number;
    withoutRps: number;
    withStatements: number;
    withoutStatements: number;
    roundRatios: number[];
    errors: number;
    ratio: number;
  };
  /** Rows per second of a 500-row import, medians of the rounds; the ratio with/without. */
  import: {
    withRowsPerSecond: number;
    withoutRowsPerSecond: number;
    roundRatios: number[];
    ratio: number;
  };
}

const round = (value: number, digits = 2): number =>
  Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Company {
  id: number;
  token: string;
  tradeIds: number[];
}

async function api(
  baseUrl: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The company, its five fields made through the API, and its trades. */
async function prepareCompany(db: DatabaseHandle, baseUrl: string): Promise<Company> {
  const company = await createCompany(db.db, {
    name: "Custom fields",
    plan: "enterprise",
    addons: ["api"],
  });
  for (const field of FIELDS) {
    const made = await api(baseUrl, company.token, "POST", "/v1/custom-fields", {
      resource: "workers",
      ...field,
    });
    if (made.status !== 201) throw new Error(`POST /v1/custom-fields: ${made.status}`);
  }
  const [trades] = await db.pool.query("SELECT id FROM trades WHERE company_id = ? ORDER BY id", [
    company.company_id,
  ]);
  const tradeIds = (trades as { id: number }[]).map((row) => Number(row.id));
  return { id: company.company_id, token: company.token, tradeIds };
}

const quote = (text: string): string => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * `count` workers in multi-row INSERTs, each with its values' JSON as the API writes it, then their
 * rows of custom_field_values copied from that JSON by the database, one field at a time in record
 * order (so the primary key and three of the four indexes grow at their ends), each value in the
 * column its type is kept in.
 */
async function seedWorkers(
  db: DatabaseHandle,
  company: Company,
  count: number,
): Promise<{ workers: number; index: number }> {
  const started = performance.now();
  const at = new Date().toISOString().slice(0, 23).replace("T", " ");
  for (let first = 0; first < count; first += SEED_ROWS_PER_INSERT) {
    const rows: string[] = [];
    for (let i = first; i < Math.min(count, first + SEED_ROWS_PER_INSERT); i++) {
      const w = builtIn(i, company.tradeIds);
      rows.push(
        `(${company.id}, '${w.name}', '${w.email}', ${w.trade_id}, '${w.hired_on}', 'ACTIVE', ` +
          `${quote(JSON.stringify(customValues(i)))}, '${at}', '${at}')`,
      );
    }
    await db.pool.query(
      "INSERT INTO workers (company_id, name, email, trade_id, hired_on, status, custom_fields, " +
        `created_at, updated_at) VALUES ${rows.join(", ")}`,
    );
  }
  const workersSeconds = (performance.now() - started) / 1000;
  const [fields] = await db.pool.query(
    "SELECT id, `key`, type FROM custom_fields WHERE company_id = ? AND resource = 'workers'",
    [company.id],
  );
  const [bounds] = await db.pool.query(
    "SELECT MIN(id) AS low, MAX(id) AS high FROM workers WHERE company_id = ?",
    [company.id],
  );
  const { low, high } = (bounds as { low: number; high: number }[])[0]!;
  for (const field of fields as { id: number; key: string; type: string }[]) {
    const value = `JSON_UNQUOTE(JSON_EXTRACT(custom_fields, '$.${field.key}'))`;
    const column =
      field.type === "date"
        ? "value_date"
        : field.type === "text" || field.type === "select"
          ? "value_text"
          : "value_number";
    for (let from = Number(low); from <= Number(high); from += INDEX_IDS_PER_COPY)
      await db.pool.query(
        `INSERT INTO custom_field_values (company_id, field_id, record_id, ${column}) ` +
          `SELECT company_id, ?, id, ${value} FROM workers WHERE company_id = ? AND id >= ? ` +
          "AND id < ? ORDER BY id",
        [field.id, company.id, from, from + INDEX_IDS_PER_COPY],
      );
  }
  await recountLiveRecords(db.db, company.id);
  await db.pool.query("ANALYZE TABLE workers, custom_field_values");
  return { workers: workersSeconds, index: (performance.now() - started) / 1000 - workersSeconds };
}

/** A record's stored JSON text and its index rows (all but the record id), as the database holds them. */
async function storedForm(db: DatabaseHandle, companyId: number, id: number): Promise<string> {
  const [record] = await db.pool.query(
    "SELECT custom_fields FROM workers WHERE company_id = ? AND id = ?",
    [companyId, id],
  );
  const [index] = await db.pool.query(
    "SELECT field_id, value_text, CAST(value_number AS CHAR) AS value_number, " +
      "CAST(value_date AS CHAR) AS value_date, unique_value FROM custom_field_values " +
      "WHERE company_id = ? AND record_id = ? ORDER BY field_id",
    [companyId, id],
  );
  return JSON.stringify({ record, index });
}

/**
 * Workers 0 and 1 as the API writes them, beside the seeded ones: the same JSON text, the same index
 * rows, the same `custom_fields` read back through the API; else the leg stops.
 */
async function checkSeeded(db: DatabaseHandle, baseUrl: string, company: Company): Promise<void> {
  for (const i of [0, 1]) {
    const made = await api(baseUrl, company.token, "POST", "/v1/workers", {
      ...builtIn(i, company.tradeIds),
      name: `Through the API ${i}`,
      custom_fields: customValues(i),
    });
    if (made.status !== 201) throw new Error(`POST /v1/workers: ${made.status}`);
    const madeId = Number((made.json.data as { id: number }).id);
    const [seeded] = await db.pool.query(
      "SELECT id FROM workers WHERE company_id = ? AND name = ?",
      [company.id, `Custom worker ${i}`],
    );
    const seededId = Number((seeded as { id: number }[])[0]!.id);
    const [apiStored, seedStored] = await Promise.all([
      storedForm(db, company.id, madeId),
      storedForm(db, company.id, seededId),
    ]);
    const [apiRead, seedRead] = await Promise.all([
      api(baseUrl, company.token, "GET", `/v1/workers/${madeId}`),
      api(baseUrl, company.token, "GET", `/v1/workers/${seededId}`),
    ]);
    const shown = (read: { json: Record<string, unknown> }) =>
      JSON.stringify((read.json.data as Record<string, unknown>).custom_fields);
    if (apiStored !== seedStored || shown(apiRead) !== shown(seedRead))
      throw new Error(
        `seeded worker ${i} is not stored as the API stores it:\n` +
          `API:    ${apiStored} ${shown(apiRead)}\nseeded: ${seedStored} ${shown(seedRead)}`,
      );
  }
}

/** The `after` cursor of the page at 99% of a sorted list, reached page after page as an app does. */
async function cursorAt99(
  baseUrl: string,
  token: string,
  list: string,
  records: number,
): Promise<{ cursor: string; pages: number; seconds: number }> {
  const started = performance.now();
  const pages = Math.floor((records * 0.99) / 100);
  let cursor = "";
  for (let page = 0; page < pages; page++) {
    const after = page === 0 ? "" : `&after=${encodeURIComponent(cursor)}`;
    const response = await fetch(`${baseUrl}${list}&limit=100&total=false&fields=id${after}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { meta: { next_cursor?: string } };
    if (response.status !== 200 || body.meta.next_cursor === undefined)
      throw new Error(`GET ${list}: ${response.status} at page ${page}, no next_cursor`);
    cursor = body.meta.next_cursor;
  }
  return { cursor, pages, seconds: (performance.now() - started) / 1000 };
}

/** Median and p99 ms of each page, the pages taking turns after `warmups` untimed rounds. */
async function latencies(
  baseUrl: string,
  token: string,
  paths: string[],
  requests: number,
  warmups = 3,
): Promise<{ medianMs: number; p99Ms: number }[]> {
  const pages = paths.map((path) => ({ token, path }));
  return (await pageLatencies(baseUrl, pages, requests, warmups)).map(({ medianMs, p99Ms }) => ({
    medianMs: round(medianMs),
    p99Ms: round(p99Ms),
  }));
}

const pair = (
  custom: { medianMs: number; p99Ms: number },
  builtIn: { medianMs: number; p99Ms: number },
): PagePair => ({ custom, builtIn, ratio: round(custom.medianMs / builtIn.medianMs) });

async function measurePages(
  baseUrl: string,
  company: Company,
  sizes: CustomFieldSizes,
): Promise<
  Pick<
    CustomFieldsResult,
    "filterFirstPage" | "filterFirstPageNoTotal" | "sortedDeepPage" | "sortedFirstPage" | "walks"
  >
> {
  const records = sizes.workers + 2;
  const customSort = "/v1/workers?sort=cf.cert_expires_on";
  const builtInSort = "/v1/workers?sort=hired_on";
  const customWalk = await cursorAt99(baseUrl, company.token, customSort, records);
  const builtInWalk = await cursorAt99(baseUrl, company.token, builtInSort, records);
  const crew = `/v1/workers?cf.crew=${encodeURIComponent(CREWS[2]!)}&limit=100`;
  const trade = `/v1/workers?trade_id=${company.tradeIds[2]}&limit=100`;
  const deep = (list: string, cursor: string) =>
    `${list}&limit=100&total=false&after=${encodeURIComponent(cursor)}`;
  const timed = await latencies(
    baseUrl,
    company.token,
    [
      crew,
      trade,
      `${crew}&total=false`,
      `${trade}&total=false`,
      deep(customSort, customWalk.cursor),
      deep(builtInSort, builtInWalk.cursor),
    ],
    sizes.requests,
  );
  // Not a goal, and slow (the records without a value come first, and finding there are none
  // reads every record): a few requests.
  const first = await latencies(
    baseUrl,
    company.token,
    [`${customSort}&limit=100&total=false`, `${builtInSort}&limit=100&total=false`],
    Math.min(5, sizes.requests),
    1,
  );
  return {
    filterFirstPage: pair(timed[0]!, timed[1]!),
    filterFirstPageNoTotal: pair(timed[2]!, timed[3]!),
    sortedDeepPage: pair(timed[4]!, timed[5]!),
    sortedFirstPage: pair(first[0]!, first[1]!),
    walks: {
      pages: customWalk.pages,
      customSeconds: round(customWalk.seconds, 1),
      builtInSeconds: round(builtInWalk.seconds, 1),
    },
  };
}

async function questions(db: DatabaseHandle): Promise<number> {
  const [rows] = await db.pool.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

let serial = 0;

/** Creates a second for `seconds` under 32 connections, and the database statements per create. */
async function createRound(
  db: DatabaseHandle,
  baseUrl: string,
  company: Company,
  withValues: boolean,
  seconds: number,
): Promise<{ rps: number; statements: number; errors: number }> {
  const before = await questions(db);
  const result = await autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/v1/workers",
        headers: { authorization: `Bearer ${company.token}`, "content-type": "application/json" },
        setupRequest: (request) => {
          const i = 2_000_000 + serial++;
          // No trade: a create naming a reference locks it, and all of them would queue on one row.
          const { trade_id: _trade, ...fields } = builtIn(i, company.tradeIds);
          const body = {
            ...fields,
            name: `Created ${process.pid} ${i}`,
            ...(withValues ? { custom_fields: customValues(i) } : {}),
          };
          return { ...request, body: JSON.stringify(body) };
        },
      },
    ],
  });
  const created = result.statusCodeStats?.["201"]?.count ?? 0;
  // Let the writes the server accepted before the deadline finish before the other side's round.
  await Bun.sleep(300);
  const statements = ((await questions(db)) - before - 1) / Math.max(1, created);
  return {
    rps: Math.round(created / seconds),
    statements: round(statements),
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

async function measureCreates(
  db: DatabaseHandle,
  baseUrl: string,
  company: Company,
  sizes: CustomFieldSizes,
): Promise<CustomFieldsResult["create"]> {
  for (const withValues of [true, false])
    await createRound(db, baseUrl, company, withValues, sizes.createSeconds);
  type Run = Awaited<ReturnType<typeof createRound>>;
  const runs = { with: [] as Run[], without: [] as Run[] };
  for (let r = 0; r < sizes.rounds; r++)
    for (const withValues of r % 2 === 0 ? [true, false] : [false, true])
      runs[withValues ? "with" : "without"].push(
        await createRound(db, baseUrl, company, withValues, sizes.createSeconds),
      );
  const withRps = median(runs.with.map((run) => run.rps));
  const withoutRps = median(runs.without.map((run) => run.rps));
  return {
    withRps,
    withoutRps,
    withStatements: median(runs.with.map((run) => run.statements)),
    withoutStatements: median(runs.without.map((run) => run.statements)),
    roundRatios: runs.with.map((run, r) => round(runs.without[r]!.rps / Math.max(1, run.rps))),
    errors: [...runs.with, ...runs.without].reduce((sum, run) => sum + run.errors, 0),
    ratio: round(withoutRps / Math.max(1, withRps)),
  };
}

/** A CSV of 500 workers, with the five custom fields as columns headed by their labels or without. */
function importFile(dir: string, first: number, withValues: boolean): string {
  const header = ["name", "email", "hired_on", ...(withValues ? FIELDS.map((f) => f.label) : [])];
  const lines = [header.join(",")];
  for (let i = first; i < first + IMPORT_ROWS; i++) {
    const w = builtIn(i, []);
    const v = customValues(i);
    const custom = [v.badge, v.crew, v.cert_expires_on, v.shoe_size, v.allowance];
    lines.push([`Imported ${i}`, w.email, w.hired_on, ...(withValues ? custom : [])].join(","));
  }
  const file = path.join(dir, `workers-${first}.csv`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** `erp import workers` as a user runs it: rows per second; the leg stops when a row failed. */
async function importRound(
  baseUrl: string,
  company: Company,
  withValues: boolean,
  first: number,
): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-bench-cf-import-"));
  try {
    const file = importFile(dir, first, withValues);
    const started = performance.now();
    const child = spawnCli(dir, baseUrl, company.token, ["import", "workers", file], {
      stderr: "pipe",
    });
    const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    const seconds = (performance.now() - started) / 1000;
    if (exitCode !== 0) throw new Error(`erp import exited ${exitCode}:\n${stderr}`);
    return Math.round(IMPORT_ROWS / seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureImports(
  db: DatabaseHandle,
  baseUrl: string,
  company: Company,
  sizes: CustomFieldSizes,
): Promise<CustomFieldsResult["import"]> {
  let first = 3_000_000;
  const next = () => (first += IMPORT_ROWS);
  for (const withValues of [true, false]) await importRound(baseUrl, company, withValues, next());
  const rates = { with: [] as number[], without: [] as number[] };
  for (let r = 0; r < sizes.rounds; r++)
    for (const withValues of r % 2 === 0 ? [true, false] : [false, true])
      rates[withValues ? "with" : "without"].push(
        await importRound(baseUrl, company, withValues, next()),
      );
  const [held] = await db.pool.query(
    "SELECT COUNT(*) AS n FROM workers w JOIN custom_field_values v ON v.company_id = w.company_id " +
      "AND v.record_id = w.id WHERE w.company_id = ? AND w.name LIKE 'Imported %'",
    [company.id],
  );
  const expected = (sizes.rounds + 1) * IMPORT_ROWS * FIELDS.length;
  if (Number((held as { n: number }[])[0]!.n) !== expected)
    throw new Error(
      `the imports with custom columns left ${JSON.stringify(held)} index rows, not ${expected}`,
    );
  const withRate = median(rates.with);
  const withoutRate = median(rates.without);
  return {
    withRowsPerSecond: withRate,
    withoutRowsPerSecond: withoutRate,
    roundRatios: rates.with.map((rate, r) => round(rate / Math.max(1, rates.without[r]!))),
    ratio: round(withRate / Math.max(1, withoutRate)),
  };
}

export async function customFieldsLeg(
  db: DatabaseHandle,
  baseUrl: string,
  sizes: CustomFieldSizes,
): Promise<CustomFieldsResult> {
  const company = await prepareCompany(db, baseUrl);
  const seed = await seedWorkers(db, company, sizes.workers);
  await checkSeeded(db, baseUrl, company);
  const pages = await measurePages(baseUrl, company, sizes);
  const create = await measureCreates(db, baseUrl, company, sizes);
  const imports = await measureImports(db, baseUrl, company, sizes);
  return {
    workers: sizes.workers,
    seed: { workersSeconds: round(seed.workers, 1), indexSeconds: round(seed.index, 1) },
    ...pages,
    create,
    import: imports,
  };
}

/** The leg's lines of the bench report. */
export function describeCustomFields(result: CustomFieldsResult): string {
  const page = (name: string, p: PagePair, target?: string) =>
    `  ${name}: ${p.custom.medianMs} ms (p99 ${p.custom.p99Ms}) against ${p.builtIn.medianMs} ms ` +
    `(p99 ${p.builtIn.p99Ms}): ${p.ratio}x${target ? ` (target ${target})` : ""}`;
  const c = result.create;
  const i = result.import;
  return [
    `Custom fields, ${result.workers.toLocaleString("en")} workers with 5 values each (seeded in ` +
      `${result.seed.workersSeconds} s, their index rows in ${result.seed.indexSeconds} s), custom ` +
      "field against built-in:",
    page("first page of cf.crew=… against trade_id=…, with total", result.filterFirstPage, "≤ 1.5"),
    page("the same, total=false", result.filterFirstPageNoTotal),
    page(
      "sort=cf.cert_expires_on against sort=hired_on, page at 99%",
      result.sortedDeepPage,
      "≤ 1.5",
    ) +
      ` (reached in ${result.walks.pages.toLocaleString("en")} pages: ${result.walks.customSeconds} ` +
      `and ${result.walks.builtInSeconds} s)`,
    page("the same sorts, first page", result.sortedFirstPage),
    `  POST /v1/workers with 5 custom values ${c.withRps} req/s (${c.withStatements} statements), ` +
      `without ${c.withoutRps} req/s (${c.withoutStatements}): cost ${c.ratio}x (target ≤ 1.3; ` +
      `rounds ${c.roundRatios.join(", ")}), ${c.errors} errors`,
    `  erp import workers, 500 rows, with 5 custom columns ${i.withRowsPerSecond} rows/s, without ` +
      `${i.withoutRowsPerSecond} rows/s: ${i.ratio}x the rate (target ≥ 0.7; rounds ` +
      `${i.roundRatios.join(", ")})`,
  ].join("\n");
}

if (import.meta.main) {
  const sizes = process.argv.includes("--quick")
    ? CUSTOM_FIELD_SIZES.quick
    : CUSTOM_FIELD_SIZES.full;
  await runLegAlone("erp_bench_custom_fields", async (db, baseUrl) =>
    describeCustomFields(await customFieldsLeg(db, baseUrl, sizes)),
  );
}
