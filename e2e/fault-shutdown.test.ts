// Fault suite: SIGTERM of one of two servers under a keyed write load, as a rolling deploy does.
// Every request the stopping server accepted is answered (none is cut off after it ran), the
// clients that find it gone retry on the other server with the same key, every row exists exactly
// once, and the usage meter of both servers adds up to exactly the answers the clients received.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { closeTestDb, newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(120_000);

const ROWS = 600;
const CLIENTS = 16;
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL")));
  await closeTestDb();
});

test("SIGTERM under load: in-flight requests answered, retries elsewhere run once, meters add up", async () => {
  const [leaving, staying] = await Promise.all([startServer(), startServer()]);
  servers.push(leaving!, staying!);
  const { token, companyId } = await newCompany();
  const figures = {
    requests: 0,
    answered: 0,
    created: 0,
    replayed: 0,
    refusedConnections: 0,
    other: [] as string[],
  };
  let next = 0;
  let done = 0;

  async function send(row: number): Promise<void> {
    // Alternate servers, as a load balancer would, until the leaving one is gone.
    let target = row % 2 === 0 ? leaving! : staying!;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      figures.requests += 1;
      const response = await fetch(`${target.baseUrl}/v1/workers`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": `shutdown-${row}`,
        },
        body: JSON.stringify({ name: `Shutdown row ${row}` }),
      }).catch(() => undefined);
      if (!response) {
        figures.refusedConnections += 1;
        target = staying!;
        continue;
      }
      figures.answered += 1;
      await response.arrayBuffer();
      if (response.status === 201 || response.status === 200) {
        if (response.headers.get("idempotent-replayed") === "true") figures.replayed += 1;
        else figures.created += 1;
        return;
      }
      figures.other.push(`${response.status}`);
      return;
    }
    figures.other.push("gave up");
  }

  const clients = Array.from({ length: CLIENTS }, async () => {
    while (next < ROWS) {
      const row = next++;
      await send(row);
      done += 1;
    }
  });
  const stop = (async () => {
    while (done < ROWS / 3) await Bun.sleep(10);
    return leaving!.stop("SIGTERM");
  })();
  await Promise.all(clients);
  const exitCode = await stop;
  await staying!.stop("SIGTERM");

  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT name, COUNT(*) AS copies FROM workers WHERE company_id = ? GROUP BY name",
    [companyId],
  );
  const duplicated = rows.filter((r) => Number(r.copies) > 1).length;
  const [meters] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT requests, replays FROM usage_counters WHERE company_id = ?",
    [companyId],
  );
  const metered = Number(meters[0]?.requests ?? 0) + Number(meters[0]?.replays ?? 0);

  console.log(
    `[fault: SIGTERM under load] rows ${ROWS}, clients ${CLIENTS}, requests ` +
      `${figures.requests}, answered ${figures.answered}, ` +
      `connections refused after the stop ${figures.refusedConnections}, created ` +
      `${figures.created}, replays ${figures.replayed}, ` +
      `other answers ${figures.other.length}, rows stored ${rows.length}, duplicated ` +
      `${duplicated}, lost ${ROWS - rows.length}, ` +
      `metered ${metered} for ${figures.answered} answers, exit code ${exitCode}`,
  );

  expect(exitCode).toBe(0);
  expect(figures.other).toEqual([]);
  expect(rows.length).toBe(ROWS);
  expect(duplicated).toBe(0);
  expect(figures.created + figures.replayed).toBe(ROWS);
  // A request that ran but whose answer was cut off would be metered without being answered.
  expect(metered).toBe(figures.answered);
});
