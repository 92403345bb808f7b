// What a batch's events cost the database in each way of storing them (`bun bench/event-storage.ts
// [rounds]`, alone, on a throw-away database): the counters and the events of one 500-worker batch
// and the COMMIT, sent as one text the way the write path sends it, layouts taking turns round by round.
// - rows: today's `events` table, one row per event with its payload (events/event-log.ts).
// - batch + index: one row for the batch holding the 500 payloads (one JSON line each), and a
//   narrow row per event (number, type, resource, record id) keyed like `events` and indexed for
//   histories.
// - batch + index, compact: the same, each payload the record's values without their keys.
// - batch + history key: the one row, and per event only the key of a record's history (company,
//   resource, record id, number) and the number of the row holding its payload: one B-tree entry.
// - chunks of 16 + history key: the payloads in rows of 16 events, and the same history rows.
// - batch only: the one row and no per-event rows (no history index: the floor).
// Then the reads of each layout: a page of the feed and a record's history whose 100 events lie in
// 100 batches (the last item of every batch is the same record).
import mysql from "mysql2/promise";
import { insertEvents } from "../server/src/events/event-log.ts";
import { randomSuffixes } from "../server/src/events/event-ids.ts";
import { moveCounters } from "../server/src/db/company-counters.ts";
import { fillPlaceholders, sqlLiteral } from "../server/src/db/sql.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

const ROUNDS = Number(process.argv[2] ?? 40);
const BATCH = 500;
const COMPANY = 1;

const record = (id: number) => ({
  id,
  name: `Imported ${id}`,
  email: `imported${id}@example.com`,
  phone: `+1 555 ${String(id % 10_000).padStart(4, "0")}`,
  trade_id: null,
  hourly_rate: "42.50",
  hired_on: null,
  status: "ACTIVE",
  external_id: null,
  created_at: "2026-11-29T11:00:00.000Z",
  updated_at: "2026-11-29T11:00:00.000Z",
  deleted_at: null,
});

/** The batch's i-th record: the last item of every batch is record 1, whose history spans them all. */
const recordId = (first: number, i: number): number => (i === BATCH - 1 ? 1 : first + i);

const counters = (): string => {
  const statement = moveCounters(COMPANY, BATCH, new Map([["workers", BATCH]]))!;
  return fillPlaceholders(statement.text, statement.values!);
};

function rowsText(first: number): string {
  const changes = Array.from({ length: BATCH }, (_, i) => ({
    resource: "workers",
    action: "created" as const,
    record: record(recordId(first, i)),
  }));
  const events = insertEvents([
    {
      source: { companyId: COMPANY, requestId: "req_bench", idempotencyKey: "key-bench" },
      changes,
      suffixes: randomSuffixes(BATCH),
    },
  ]);
  return events.text;
}

type Index = "records" | "history" | "none";

/** The INSERT of record 1's history rows (or the narrow rows) of a batch whose rows end at LAST_INSERT_ID(). */
function indexText(first: number, index: Index, container: (i: number) => number): string {
  const rows: string[] = [];
  const seq = (i: number) => `LAST_INSERT_ID() - ${BATCH - 1 - i}`;
  if (index === "records") {
    for (let i = 0; i < BATCH; i++)
      rows.push(`(${COMPANY}, ${seq(i)}, 'worker.created', 'workers', ${recordId(first, i)})`);
    return `;\nINSERT INTO probe_records (company_id, seq, type, resource, record_id) VALUES ${rows.join(", ")}`;
  }
  if (index === "none") return "";
  for (let i = 0; i < BATCH; i++)
    rows.push(`(${COMPANY}, 'workers', ${recordId(first, i)}, ${seq(i)}, ${seq(container(i))})`);
  return `;\nINSERT INTO probe_history (company_id, resource, record_id, seq, holder) VALUES ${rows.join(", ")}`;
}

/** A row of the batch (or chunk) table: events `from` to `to` of the batch, their payloads as lines. */
function holderRow(first: number, from: number, to: number, compact: boolean): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) {
    const r = record(recordId(first, i));
    lines.push(JSON.stringify(compact ? Object.values(r) : { record: r }));
  }
  const [token] = randomSuffixes(1);
  return (
    `(${COMPANY}, LAST_INSERT_ID() - ${BATCH - to}, ${to - from}, '${token}', 'req_bench', ` +
    `'key-bench', ${sqlLiteral(lines.join("\n"))}, NOW(3))`
  );
}

const HOLDERS =
  "INSERT INTO probe_batches (company_id, seq, events, token, request_id, idempotency_key, data, created_at) VALUES ";

function batchText(first: number, compact: boolean, index: Index): string {
  return HOLDERS + holderRow(first, 0, BATCH, compact) + indexText(first, index, () => BATCH - 1);
}

const CHUNK = 16;

function chunkText(first: number): string {
  const rows: string[] = [];
  for (let from = 0; from < BATCH; from += CHUNK)
    rows.push(holderRow(first, from, Math.min(BATCH, from + CHUNK), false));
  const last = (i: number) => Math.min(BATCH, (Math.floor(i / CHUNK) + 1) * CHUNK) - 1;
  return HOLDERS + rows.join(", ") + indexText(first, "history", last);
}

function report(name: string, times: number[], note = ""): void {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.floor(sorted.length * p)]!.toFixed(2);
  console.log(`${name.padEnd(26)} p25 ${at(0.25)}  p50 ${at(0.5)}  p90 ${at(0.9)} ms  ${note}`);
}

interface Holder {
  seq: number;
  events: number;
  data: string;
}

/** The payload of event `seq` in the row holding it: its line, parsed alone. */
function payloadIn(holder: Holder, seq: number): unknown {
  let line = seq - (Number(holder.seq) - holder.events + 1);
  let at = 0;
  while (line-- > 0) at = holder.data.indexOf("\n", at) + 1;
  const end = holder.data.indexOf("\n", at);
  return JSON.parse(holder.data.slice(at, end < 0 ? undefined : end));
}

/**
 * The reads of a page of 100 in each layout (rows fetched and payloads parsed, in this process):
 * the feed from a random place, and record 1's history (one event in each batch). The batch and
 * chunk rows share one table; a page reads those after the place that hold 100 events.
 */
async function reads(connection: mysql.Connection, last: number): Promise<void> {
  const ROW_COLUMNS =
    "id, type, resource, record_id, data, request_id, idempotency_key, created_at";
  const reads: [string, (at: number) => Promise<unknown>][] = [
    [
      "page: rows",
      async (at) => {
        const [rows] = await connection.query(
          `SELECT ${ROW_COLUMNS} FROM events WHERE company_id = 1 AND seq > ? ORDER BY seq LIMIT 100`,
          [at],
        );
        return (rows as { data: string }[]).map((row) => JSON.parse(row.data));
      },
    ],
    [
      "page: batch/chunk rows",
      async (at) => {
        const [rows] = await connection.query(
          "SELECT seq, events, token, request_id, idempotency_key, created_at, data FROM probe_batches " +
            "WHERE company_id = 1 AND seq > ? ORDER BY seq LIMIT 7",
          [at],
        );
        const payloads: unknown[] = [];
        for (const row of rows as Holder[]) {
          for (const line of row.data.split("\n")) payloads.push(JSON.parse(line));
          if (payloads.length >= 100) break;
        }
        return payloads.slice(0, 100);
      },
    ],
    [
      "history: rows",
      async () => {
        const [rows] = await connection.query(
          `SELECT ${ROW_COLUMNS} FROM events WHERE company_id = 1 AND resource = 'workers' ` +
            "AND record_id = 1 ORDER BY seq LIMIT 100",
        );
        return (rows as { data: string }[]).map((row) => JSON.parse(row.data));
      },
    ],
    ...[
      ["history: batches", "= 500"],
      ["history: chunks of 16", "< 500"],
    ].map(([name, size]): [string, () => Promise<unknown>] => [
      name!,
      async () => {
        const [rows] = await connection.query(
          "SELECT h.seq AS event, b.seq, b.events, b.data FROM probe_history AS h JOIN probe_batches AS b " +
            "ON b.company_id = h.company_id AND b.seq = h.holder WHERE h.company_id = 1 AND " +
            `h.resource = 'workers' AND h.record_id = 1 AND b.events ${size} ORDER BY h.seq LIMIT 100`,
        );
        return (rows as (Holder & { event: number })[]).map((row) =>
          payloadIn(row, Number(row.event)),
        );
      },
    ]),
  ];
  const times = reads.map((): number[] => []);
  for (let round = 0; round < 60; round++) {
    const at = Math.floor(Math.random() * (last - 4_000));
    for (const [index, [, read]] of reads.entries()) {
      const started = performance.now();
      await read(at);
      times[index]!.push(performance.now() - started);
    }
  }
  for (const [index, [name]] of reads.entries())
    report(name, times[index]!, "(60 reads of 100 events)");
}

async function main(): Promise<void> {
  await withThrowAwayDatabase("erp_bench_event_storage", async (url) => {
    const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
    await connection.query("SET autocommit = 0");
    await connection.query(
      "INSERT INTO company_counters (company_id, name, value) VALUES (1, 'events', 0), (1, 'workers', 0)",
    );
    await connection.query(`CREATE TABLE probe_batches (
      company_id BIGINT UNSIGNED NOT NULL, seq BIGINT UNSIGNED NOT NULL, events INT NOT NULL,
      token CHAR(16) NOT NULL, request_id VARCHAR(200) NOT NULL, idempotency_key VARBINARY(255),
      data MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      created_at DATETIME(3) NOT NULL, PRIMARY KEY (company_id, seq))`);
    await connection.query(`CREATE TABLE probe_records (
      company_id BIGINT UNSIGNED NOT NULL, seq BIGINT UNSIGNED NOT NULL,
      type VARCHAR(64) NOT NULL, resource VARCHAR(64) NOT NULL, record_id BIGINT UNSIGNED NOT NULL,
      PRIMARY KEY (company_id, seq), KEY probe_records_record (company_id, resource, record_id, seq))`);
    await connection.query(`CREATE TABLE probe_history (
      company_id BIGINT UNSIGNED NOT NULL, resource VARCHAR(64) NOT NULL,
      record_id BIGINT UNSIGNED NOT NULL, seq BIGINT UNSIGNED NOT NULL,
      holder BIGINT UNSIGNED NOT NULL, PRIMARY KEY (company_id, resource, record_id, seq))`);
    const layouts: [string, (first: number) => string][] = [
      ["rows", rowsText],
      ["batch + index", (first) => batchText(first, false, "records")],
      ["batch + index, compact", (first) => batchText(first, true, "records")],
      ["batch + history key", (first) => batchText(first, false, "history")],
      ["chunks of 16 + history key", chunkText],
      ["batch only", (first) => batchText(first, false, "none")],
    ];
    const times = layouts.map((): number[] => []);
    const sizes = layouts.map(() => 0);
    let first = 1;
    for (let round = 0; round < ROUNDS + 3; round++) {
      for (const [index, [, text]] of layouts.entries()) {
        const whole = `${counters()};\n${text(first)};\nCOMMIT`;
        first += BATCH;
        const started = performance.now();
        await connection.query(whole);
        if (round >= 3) times[index]!.push(performance.now() - started);
        sizes[index] = whole.length;
      }
    }
    for (const [index, [name]] of layouts.entries())
      report(name, times[index]!, `(${Math.round(sizes[index]! / 1024)} KB of text)`);
    await reads(connection, first);
    await connection.end();
  });
}

await main();
