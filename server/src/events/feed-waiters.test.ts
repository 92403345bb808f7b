import { describe, expect, test } from "bun:test";
import { MySqlDialect } from "drizzle-orm/mysql-core";
import type { SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { EventKind } from "./event-log.ts";
import { FeedWaiters } from "./feed-waiters.ts";

const dialect = new MySqlDialect();
type Row = Record<string, unknown>;

/** A database that answers the loop's reads from what the test says committed, and counts them. */
function fakeDatabase() {
  const state = {
    /** Events of company 1 as (seq, type, resource). */
    events: [] as { seq: number; type: string; resource: string }[],
    reads: 0,
  };
  const db = {
    async execute(query: SQL): Promise<[Row[]]> {
      state.reads += 1;
      const { sql, params } = dialect.sqlToQuery(query);
      if (sql.includes("company_counters"))
        return [[{ company_id: 1, value: state.events.at(-1)?.seq ?? 0 }]];
      const [, after, upTo] = params as number[];
      const groups = new Map<string, Row>();
      for (const event of state.events.filter((e) => e.seq > after! && e.seq <= upTo!)) {
        const group = groups.get(event.type) ?? {
          company_id: 1,
          type: event.type,
          resource: event.resource,
          newest: 0,
          how_many: 0,
        };
        group.newest = event.seq;
        group.how_many = (group.how_many as number) + 1;
        groups.set(event.type, group);
      }
      return [[...groups.values()]];
    },
  };
  const commit = (type: string, resource: string, times = 1) => {
    for (let i = 0; i < times; i++)
      state.events.push({ seq: (state.events.at(-1)?.seq ?? 0) + 1, type, resource });
  };
  return { db: db as unknown as Database, state, commit };
}

const projectsCreated = (kind: EventKind) => kind.type === "project.created";
const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), Bun.sleep(0).then(() => false)]);

describe("feed waiters", () => {
  test(
    "events the filter does not want leave a waiter asleep; the loop reads once a round, not " +
      "once a waiter",
    async () => {
      const { db, state, commit } = fakeDatabase();
      const waiters = new FeedWaiters(db);
      const waits = Array.from({ length: 50 }, () => waiters.wait(1, 0, projectsCreated, 5_000));
      commit("worker.created", "workers", 30);
      await Bun.sleep(700);
      for (const wait of waits) expect(await settled(wait)).toBe(false);
      // About three rounds of 200 ms: one read each, whatever the number of waiters.
      expect(state.reads).toBeLessThanOrEqual(4);
      commit("project.created", "projects");
      expect(await Promise.all(waits)).toEqual(waits.map(() => 31));
      waiters.close();
    },
  );

  test("a write of this process releases at once only the waiters that want its events", async () => {
    const { db } = fakeDatabase();
    const waiters = new FeedWaiters(db);
    const projects = waiters.wait(1, 0, projectsCreated, 5_000);
    const workers = waiters.wait(1, 0, (kind) => kind.resource === "workers", 5_000);
    waiters.committed(1, [{ type: "project.created", resource: "projects" }]);
    expect(await settled(projects)).toBe(true);
    expect(await settled(workers)).toBe(false);
    waiters.close();
    expect(await workers).toBeUndefined();
  });

  test(
    "a waiter that comes after the loop read a wanted event is released at once; one it read " +
      "unwanted ones for waits",
    async () => {
      const { db, commit } = fakeDatabase();
      const waiters = new FeedWaiters(db);
      const first = waiters.wait(1, 0, () => false, 5_000);
      commit("worker.created", "workers");
      commit("project.created", "projects");
      commit("worker.created", "workers");
      await Bun.sleep(350);
      expect(await settled(waiters.wait(1, 0, projectsCreated, 5_000))).toBe(true);
      expect(await settled(waiters.wait(1, 2, projectsCreated, 5_000))).toBe(false);
      waiters.close();
      await first;
    },
  );

  test("a company too far behind skips to its newest event and releases its waiters", async () => {
    const { db, commit } = fakeDatabase();
    const waiters = new FeedWaiters(db);
    const wait = waiters.wait(1, 0, projectsCreated, 5_000);
    commit("worker.created", "workers", 10_001);
    expect(await wait).toBe(10_001);
    waiters.close();
  });
});
