// Group commit (server/src/writes/group-commits.ts): a company's writes that arrive while one of
// its commits is in flight go together in one transaction. What each write answers must be its
// own, a member that fails must fail alone, and the feed and counts must come out as if every
// write had committed by itself.
import { expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { newCompany, testDb } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(60_000);

const suite = useServer();

/**
 * Sends `count` creates of one company at once, the first `keyed` with an Idempotency-Key of
 * their own and the first `twice` of those sent twice at once (the second copy meets the first's
 * key at commit), then checks answers, records, feed, count and keys.
 */
async function concurrentCreates(count: number, keyed: number, twice: number): Promise<void> {
  const { token, companyId } = await newCompany();
  const api = suite.api.as(token);
  const writes = Array.from({ length: count }, (_, i) => ({
    name: `Grouped ${i}`,
    key: i < keyed ? `key-${i}` : undefined,
  }));
  const sends = [...writes, ...writes.slice(0, twice)].sort(() => Math.random() - 0.5);
  const answers = await Promise.all(
    sends.map(async (write) => ({
      write,
      response: await api.post(
        "/v1/workers",
        { name: write.name },
        write.key ? { headers: { "idempotency-key": write.key } } : {},
      ),
    })),
  );

  const idsByName = new Map<string, Set<number>>();
  for (const { write, response } of answers) {
    // A copy that arrived while its twin ran may be told to retry; everything else is created or replayed.
    if (response.status === 409) {
      expect(response.body.code).toBe("idempotency_in_progress");
      continue;
    }
    expect(response.status).toBe(201);
    const ids = idsByName.get(write.name) ?? new Set<number>();
    ids.add(response.body.data.id);
    idsByName.set(write.name, ids);
  }
  // Every write was answered with one id, whichever copy answered.
  expect([...idsByName.keys()].sort()).toEqual(writes.map((write) => write.name).sort());
  expect([...idsByName.values()].every((ids) => ids.size === 1)).toBe(true);

  const [stored] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT id, name FROM workers WHERE company_id = ? AND deleted_at IS NULL",
    [companyId],
  );
  expect(stored.length).toBe(count);
  for (const row of stored)
    expect(idsByName.get(String(row.name))).toEqual(new Set([Number(row.id)]));

  const [events] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT seq, record_id FROM events WHERE company_id = ? ORDER BY seq",
    [companyId],
  );
  expect(events.map((event) => Number(event.seq))).toEqual(
    Array.from({ length: count }, (_, i) => i + 1),
  );
  expect(events.map((event) => Number(event.record_id)).sort((a, b) => a - b)).toEqual(
    stored.map((row) => Number(row.id)).sort((a, b) => a - b),
  );

  expect((await api.get("/v1/usage")).body.data.quotas.workers.used).toBe(count);
  const [keys] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM idempotency_keys WHERE company_id = ?",
    [companyId],
  );
  expect(Number(keys[0]!.n)).toBe(keyed);
}

test(
  "150 concurrent creates of one company, 50 with an Idempotency-Key: each answer is its own " +
    "record, the feed has one event per record without a gap, the count is exact",
  async () => {
    await concurrentCreates(150, 50, 0);
  },
);

test(
  "the same with 20 keyed creates sent twice at once: a group that meets a bound key commits " +
    "its other writes anyway, and every key runs once",
  async () => {
    await concurrentCreates(150, 50, 20);
  },
);
