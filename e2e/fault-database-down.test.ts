// Fault suite (docs/errors.md): the database crashes under a keyed write load. Every answer must
// be the truth: a success, or 503 database_unavailable with Retry-After (never a 4xx a client would
// give up on, never another 5xx); the same server serves again by itself once the database is back;
// clients retrying with their keys leave every row exactly once.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { PrivateDatabase } from "@erp/testing/private-database";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(180_000);

const ROWS = 400;
const CLIENTS = 12;

const database = new PrivateDatabase();
let server: RunningServer;
let token: string;

beforeAll(async () => {
  await database.start();
  await database.query("CREATE DATABASE erp_fault");
  server = await startServer({
    env: { DATABASE_URL: database.url("erp_fault"), LOG_LEVEL: "info" },
  });
  const admin = connectDatabase(database.url("erp_fault"), { connectionLimit: 1 });
  token = (await createCompany(admin.db, { name: "Fault Co", plan: "enterprise", addons: ["api"] }))
    .token;
  await admin.close();
});

afterAll(async () => {
  await server?.stop("SIGKILL");
  await database.destroy();
});

interface Tally {
  requests: number;
  created: number;
  replayed: number;
  unavailable: number;
  outcomeUnknown: number;
  unavailableWithoutRetryAfter: number;
  clientErrors: string[];
  otherServerErrors: string[];
  noAnswer: number;
}

test("the database killed under keyed writes: only successes and 503s, every row exactly once", async () => {
  const tally: Tally = {
    requests: 0,
    created: 0,
    replayed: 0,
    unavailable: 0,
    outcomeUnknown: 0,
    unavailableWithoutRetryAfter: 0,
    clientErrors: [],
    otherServerErrors: [],
    noAnswer: 0,
  };
  let healthDuringOutage = { status: 0, code: undefined as string | undefined, ms: 0 };
  let next = 0;
  let done = 0;

  /** One row, sent until it has succeeded, as the CLI and the SDK do: same key every time. */
  async function send(row: number): Promise<void> {
    for (;;) {
      tally.requests += 1;
      const response = await fetch(`${server.baseUrl}/v1/workers`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": `fault-row-${row}`,
        },
        body: JSON.stringify({ name: `Row ${row}`, email: `row${row}@example.com` }),
        signal: AbortSignal.timeout(15_000),
      }).catch(() => undefined);
      if (!response) {
        tally.noAnswer += 1;
        await Bun.sleep(200);
        continue;
      }
      const body = (await response.json().catch(() => ({}))) as { code?: string };
      if (response.status === 201 || response.status === 200) {
        if (response.headers.get("idempotent-replayed") === "true") tally.replayed += 1;
        else tally.created += 1;
        return;
      }
      // A write whose COMMIT was on its way when the database went may be of unknown outcome
      // until it is back: sent again with its key, it is replayed or made, never made twice.
      if (response.status === 503 && body.code === "commit_outcome_unknown")
        tally.outcomeUnknown += 1;
      if (
        response.status === 503 &&
        (body.code === "database_unavailable" || body.code === "commit_outcome_unknown")
      ) {
        tally.unavailable += 1;
        if (!response.headers.get("retry-after")) tally.unavailableWithoutRetryAfter += 1;
        await Bun.sleep(250); // shorter than Retry-After, to keep pressure on the recovering server
        continue;
      }
      const what = `${response.status} ${body.code}`;
      (response.status < 500 ? tally.clientErrors : tally.otherServerErrors).push(what);
      return; // a client would give up on this row: the test counts it as lost
    }
  }

  const clients = Array.from({ length: CLIENTS }, async () => {
    while (next < ROWS) {
      const row = next++;
      await send(row);
      done += 1;
    }
  });

  // The fault: once a quarter of the rows are in, kill the database, keep it down 3 s, restart it.
  const fault = (async () => {
    while (done < ROWS / 4) await Bun.sleep(20);
    await database.stop("SIGKILL");
    const downAt = Date.now();
    const started = performance.now();
    const health = await fetch(`${server.baseUrl}/healthz`);
    healthDuringOutage = {
      status: health.status,
      code: ((await health.json()) as { code?: string }).code,
      ms: Math.round(performance.now() - started),
    };
    await Bun.sleep(Math.max(0, 3_000 - (Date.now() - downAt)));
    await database.start();
    return Date.now() - downAt;
  })();

  await Promise.all(clients);
  const outageMs = await fault;

  const rows = await database.query<{ name: string; copies: number }[]>(
    "SELECT name, COUNT(*) AS copies FROM workers GROUP BY name",
    [],
    "erp_fault",
  );
  const copies = new Map(rows.map((r) => [r.name, Number(r.copies)]));
  const lost = Array.from({ length: ROWS }, (_, i) => `Row ${i}`).filter(
    (name) => !copies.has(name),
  );
  const duplicated = [...copies.values()].filter((n) => n > 1).length;
  const serverErrors = tally.otherServerErrors.length;

  console.log(
    `[fault: database down] rows ${ROWS}, clients ${CLIENTS}, requests ${tally.requests}, faults injected 1 ` +
      `(SIGKILL of mariadbd, ${outageMs} ms until it answered again), 201 ${tally.created}, ` +
      `replays ${tally.replayed}, ` +
      `503 ${tally.unavailable} (outcome unknown ${tally.outcomeUnknown}), no answer ` +
      `${tally.noAnswer}, 4xx ${tally.clientErrors.length}, other 5xx ${serverErrors}, ` +
      `lost rows ${lost.length}, duplicated rows ${duplicated}`,
  );

  console.log(
    `[fault: database down] /healthz during the outage: ${healthDuringOutage.status} ` +
      `${healthDuringOutage.code} in ${healthDuringOutage.ms} ms`,
  );
  expect(healthDuringOutage).toMatchObject({ status: 503, code: "database_unavailable" });
  expect(healthDuringOutage.ms).toBeLessThan(2_500);
  expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  // The fault really hit requests: refused, or committing when it came (then answered once the
  // database was back and their rows were read).
  const settled = server
    .logs()
    .split("\n")
    .filter((line) => line.includes("read from its rows"));
  expect(tally.unavailable + settled.length).toBeGreaterThan(0);
  expect(tally.clientErrors).toEqual([]);
  expect(tally.otherServerErrors).toEqual([]);
  expect(tally.unavailableWithoutRetryAfter).toBe(0);
  expect(tally.noAnswer).toBe(0);
  expect(lost).toEqual([]);
  expect(duplicated).toBe(0);
  expect(copies.size).toBe(ROWS);
});

test("the server logged the outage as error classes, without SQL, parameters or a stack per request", () => {
  const lines = server
    .logs()
    .split("\n")
    .filter((line) => line.trim().length > 0);
  const errorLines = lines.filter(
    (line) => line.includes('"level":"error"') || line.includes('"level":"warn"'),
  );
  const settled = lines.filter((line) => line.includes("read from its rows"));
  console.log(
    `[fault: database down] server log: ${lines.length} lines, ${errorLines.length} warn/error, ` +
      `${settled.length} commits whose outcome was read back from their rows`,
  );
  expect(errorLines.length).toBeGreaterThan(0);
  expect(errorLines.length).toBeLessThan(60);
  const text = lines.join("\n");
  expect(text).not.toMatch(/INSERT INTO|SELECT .* FROM|token_hash|row\d+@example\.com/i);
  expect(text).not.toMatch(/\n\s+at .*\.ts:\d+/);
});
