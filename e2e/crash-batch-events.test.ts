// The change feed across a crash (docs/events-and-webhooks.md): a server killed with SIGKILL while
// batches of 500 and single creates are in flight, restarted on the same database. A batch's events
// commit in its own transaction, so the feed holds every committed batch's 500 events, together and
// in item order, and nothing of a batch that did not commit; numbers follow commit order with no gap,
// across the restart too.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { Api } from "@erp/testing/api";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";

// Batches of 500 on a loaded machine, a restart and a feed of thousands of events read back.
setDefaultTimeout(90_000);

const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL")));
  await closeTestDb();
});

interface FeedEvent {
  id: string;
  type: string;
  record_id: number;
  request_id: string;
  data: { record: { id: number; name: string } };
}

const BATCH = 500;

/** The sequence number of an event id (`evt_` + 10 base-36 digits + 16 random characters). */
const sequenceOf = (id: string): number => Number.parseInt(id.slice(4, 14), 36);

/** Every event of the feed after the cursor, page by page. */
async function follow(api: Api, after?: string): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let cursor = after ?? null;
  for (;;) {
    const page = await api.get(`/v1/events?limit=100${cursor ? `&after=${cursor}` : ""}`);
    expect(page.status).toBe(200);
    const data = page.body.data as FeedEvent[];
    if (data.length === 0) return events;
    events.push(...data);
    cursor = page.body.meta.next_cursor as string;
  }
}

const items = (batch: string) =>
  Array.from({ length: BATCH }, (_, i) => ({
    name: `${batch} ${i}`,
    email: `${batch}-${i}@example.com`,
  }));

/** The batch and item a worker's name was written for: "b7 123" → ["b7", 123]. */
const itemOf = (name: string): [string, number] => {
  const [batch, index] = name.split(" ");
  return [batch!, Number(index)];
};

/** True while the database runs a batch's write text (its workers' or its events' INSERT). */
async function batchCommitRunning(): Promise<boolean> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Query', " +
      "'Execute') AND (INFO LIKE 'INSERT INTO workers%' OR INFO LIKE 'INSERT INTO events%')",
  );
  return Number(rows[0]!.n) > 0;
}

async function storedWorkers(companyId: number): Promise<Map<number, string>> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT id, name FROM workers WHERE company_id = ?",
    [companyId],
  );
  return new Map(rows.map((row) => [Number(row.id), String(row.name)]));
}

describe("the feed across a crash", () => {
  test(
    "SIGKILL during batches of 500 under load: after a restart the feed holds exactly the " +
      "committed batches' events, in order, with no gap",
    async () => {
      const first = await startServer();
      servers.push(first);
      const { token, companyId } = await newCompany();
      const api = new Api(first.baseUrl, token);
      const answered = new Set<string>();
      let sent = 0;
      let killed = false;
      // Three connections send batches one after another; two more create clients one at a time.
      const batches = Array.from({ length: 3 }, async () => {
        while (!killed) {
          const batch = `b${sent++}`;
          const response = await api
            .post("/v1/workers/batch", { items: items(batch) })
            .catch(() => undefined);
          if (response?.status === 200) {
            expect(response.body.data.created).toBe(BATCH);
            answered.add(batch);
          }
          // Killed once six are answered, as soon as another batch's text runs in the database.
          if (answered.size === 6 && !killed) {
            killed = true;
            const deadline = Date.now() + 3_000;
            while (!(await batchCommitRunning()) && Date.now() < deadline) await Bun.sleep(1);
            first.process.kill("SIGKILL");
          }
        }
      });
      let singles = 0;
      const creates = Array.from({ length: 2 }, async () => {
        while (!killed)
          await api.post("/v1/clients", { name: `single ${singles++}` }).catch(() => undefined);
      });
      await Promise.all([...batches, ...creates]);
      await first.process.exited;
      expect(sent).toBeGreaterThan(answered.size);

      const second = await startServer();
      servers.push(second);
      const after = new Api(second.baseUrl, token);
      const events = await follow(after);

      // Numbers 1, 2, 3... in the feed's order: commit order with no gap.
      expect(events.map((event) => sequenceOf(event.id))).toEqual(
        events.map((_, index) => index + 1),
      );
      // Every worker stored has one created event, and every worker event is of a stored worker.
      const workers = await storedWorkers(companyId);
      const created = events.filter((event) => event.type === "worker.created");
      expect(created.map((event) => event.record_id).sort((a, b) => a - b)).toEqual(
        [...workers.keys()].sort((a, b) => a - b),
      );
      for (const event of created)
        expect(event.data.record.name).toBe(workers.get(event.record_id)!);
      // Each batch committed whole or not at all: its 500 events side by side, in item order,
      // under one request id.
      const byBatch = new Map<string, number[]>();
      events.forEach((event, place) => {
        if (event.type !== "worker.created") return;
        const [batch] = itemOf(event.data.record.name);
        byBatch.set(batch, [...(byBatch.get(batch) ?? []), place]);
      });
      for (const [batch, places] of byBatch) {
        expect(places).toHaveLength(BATCH);
        expect(places.at(-1)! - places[0]!).toBe(BATCH - 1);
        const own = places.map((place) => events[place]!);
        expect(own.map((event) => itemOf(event.data.record.name)[1])).toEqual(
          own.map((_, index) => index),
        );
        expect(new Set(own.map((event) => event.request_id)).size).toBe(1);
        expect(batch).toMatch(/^b\d+$/);
      }
      // Every batch answered before the kill is there; those that were not may be or not.
      for (const batch of answered) expect(byBatch.has(batch)).toBe(true);
      expect(byBatch.size).toBeLessThanOrEqual(sent);

      // The next batch's events follow the last one before the crash, number after number.
      const last = events.at(-1)!;
      const next = await after.post("/v1/workers/batch", { items: items("restarted") });
      expect(next.status).toBe(200);
      const since = await follow(after, last.id);
      expect(since.map((event) => sequenceOf(event.id))).toEqual(
        since.map((_, index) => sequenceOf(last.id) + index + 1),
      );
      expect(since.map((event) => event.data.record.name)).toEqual(
        items("restarted").map((item) => item.name),
      );
      const latest = await after.get("/v1/events?after=latest");
      expect(latest.body.meta.next_cursor).toBe(since.at(-1)!.id);
      console.log(
        `[crash: batch events] ${answered.size} batches answered, ${sent} sent, ` +
          `${byBatch.size} committed, ${singles} single creates sent; ${events.length} events ` +
          `before the restart, ${since.length} after`,
      );
    },
  );
});
