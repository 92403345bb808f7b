// What a batch update costs the database (docs/writes-and-retries.md): a 500-item update batch runs
// a bounded number of statements, as a create batch does. Counted on a MariaDB of the test's own,
// whose `Questions` counter no other test moves: every statement a client sent, reads, BEGIN and
// COMMIT included.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import mysql from "mysql2/promise";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { PrivateDatabase } from "@erp/testing/private-database";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(120_000);

const ITEMS = 500;
const database = new PrivateDatabase();
let server: RunningServer;
let token: string;
let counter: mysql.Connection;

beforeAll(async () => {
  await database.start();
  await database.query("CREATE DATABASE erp_cost");
  server = await startServer({ env: { DATABASE_URL: database.url("erp_cost") } });
  const admin = connectDatabase(database.url("erp_cost"), { connectionLimit: 1 });
  token = (await createCompany(admin.db, { name: "Cost Co", plan: "enterprise", addons: ["api"] }))
    .token;
  await admin.close();
  counter = await mysql.createConnection(database.url());
});

afterAll(async () => {
  await counter?.end();
  await server?.stop("SIGKILL");
  await database.destroy();
});

async function questions(): Promise<number> {
  const [rows] = await counter.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

async function batch(body: unknown): Promise<{ results: { id: number; action: string }[] }> {
  const response = await fetch(`${server.baseUrl}/v1/workers/batch`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "idempotency-key": crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { results: { id: number; action: string }[] } }).data;
}

test("a 500-item update batch runs at most 14 statements", async () => {
  const created = await batch({
    items: Array.from({ length: ITEMS }, (_, i) => ({ name: `Cost ${i}`, hourly_rate: "40.00" })),
  });
  const ids = created.results.map((result) => result.id);
  const counts: number[] = [];
  for (let round = 1; round <= 3; round++) {
    const before = await questions();
    const updated = await batch({
      operation: "update",
      items: ids.map((id, i) => ({ id, hourly_rate: `${40 + round}.00`, name: `Cost ${i}` })),
      item_keys: ids.map(() => crypto.randomUUID()),
    });
    // The SHOW STATUS that reads the counter counts itself once.
    counts.push((await questions()) - before - 1);
    expect(updated.results.every((result) => result.action === "updated")).toBe(true);
  }
  // The server's own background work (deliveries, housekeeping) may fall into a window: the
  // smallest of three is the batch's.
  expect(Math.min(...counts)).toBeLessThanOrEqual(14);
  console.log(`statements per 500-item update batch: ${counts.join(", ")}`);
});
