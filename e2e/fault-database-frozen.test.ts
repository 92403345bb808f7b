// Fault suite (docs/writes-and-retries.md): the database freezes while a write's COMMIT is on its
// way. The server cannot learn within the request's 10 s whether the write committed, so it says
// so: 503 commit_outcome_unknown with Retry-After, inside the bound, never database_unavailable
// (which tells the client nothing was written). Sent again with the same Idempotency-Key once the
// database is back, the write is made exactly once.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import mysql from "mysql2/promise";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { PrivateDatabase } from "@erp/testing/private-database";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(120_000);

const DATABASE = "erp_frozen";
const BOUND_MS = 10_500;

const database = new PrivateDatabase();
let server: RunningServer;
let token: string;
let companyId: number;

beforeAll(async () => {
  await database.start();
  await database.query(`CREATE DATABASE ${DATABASE}`);
  server = await startServer({ env: { DATABASE_URL: database.url(DATABASE) } });
  const admin = connectDatabase(database.url(DATABASE), { connectionLimit: 1 });
  const created = await createCompany(admin.db, {
    name: "Frozen Co",
    plan: "enterprise",
    addons: ["api"],
  });
  await admin.close();
  token = created.token;
  companyId = created.company_id;
});

afterAll(async () => {
  await server?.stop("SIGKILL");
  await database.destroy();
});

async function create(
  name: string,
  key: string,
): Promise<{ status: number; code?: string; headers: Headers }> {
  const response = await fetch(`${server.baseUrl}/v1/workers`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify({ name }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, headers: response.headers };
}

test(
  "a database frozen while a commit waits: 503 commit_outcome_unknown within the bound; the " +
    "retry with the key writes once",
  async () => {
    // The company's counter rows exist once it wrote once.
    expect((await create("Before the freeze", "before")).status).toBe(201);

    const locker = await mysql.createConnection(database.url(DATABASE));
    await locker.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    await locker.beginTransaction();
    await locker.query("SELECT value FROM company_counters WHERE company_id = ? FOR UPDATE", [
      companyId,
    ]);
    const started = performance.now();
    const sending = create("Frozen", "frozen-1");
    // Its COMMIT text is on its way and waits on the counter row when the database stops.
    await Bun.sleep(1_000);
    database.freeze();
    const answer = await sending.finally(() => database.thaw());
    const ms = Math.round(performance.now() - started);
    await locker.rollback();
    await locker.end();
    console.log(
      `[fault: database frozen] the write's answer: ${answer.status} ${answer.code} after ${ms} ms`,
    );
    expect(answer.status).toBe(503);
    expect(answer.code).toBe("commit_outcome_unknown");
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(ms).toBeLessThan(BOUND_MS);

    let retried = await create("Frozen", "frozen-1");
    for (let attempt = 0; attempt < 20 && retried.status === 503; attempt++) {
      await Bun.sleep(500);
      retried = await create("Frozen", "frozen-1");
    }
    console.log(
      `[fault: database frozen] sent again with its key: ${retried.status} (replayed: ` +
        `${retried.headers.get("idempotent-replayed") ?? "no"})`,
    );
    expect(retried.status).toBe(201);
    const [row] = await database.query<{ n: number }[]>(
      "SELECT COUNT(*) AS n FROM workers WHERE name = 'Frozen'",
      [],
      DATABASE,
    );
    expect(Number(row!.n)).toBe(1);
  },
);
