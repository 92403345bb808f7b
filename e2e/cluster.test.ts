// The cluster suite (docs/operations.md): three servers, each on its own node of a local three-node
// MariaDB Galera cluster, started together on an empty database. Keys run once, quotas are exact,
// rate limits answer only 201 or 429, a unique custom value is held once, a write aborted by
// another node commits nothing, update batches racing PATCHes of their records on another node lose
// no write and honour if_match, one file imported through the three servers at once lands exactly
// once, a node killed under load loses and duplicates nothing while clients retry elsewhere with
// their keys, and its server serves again when the node returns.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  connectDatabase,
  createCompany,
  type DatabaseHandle,
  type NewCompany,
} from "@erp/server/admin";
import { inWriteTransaction } from "@erp/server/write-transaction";
import { erpFor, tempDir } from "@erp/testing/cli";
import { freshRateWindow } from "@erp/testing/rate-window";
import { startServer, type RunningServer } from "@erp/testing/server";
import { LocalCluster } from "../scripts/lib/cluster.ts";

setDefaultTimeout(240_000);

const DATABASE = "erp_cluster_suite";
const cluster = new LocalCluster(mkdtempSync(path.join(tmpdir(), "erp-cluster-")));
let servers: RunningServer[] = [];
let admin: DatabaseHandle;

beforeAll(async () => {
  chmodSync(cluster.dir, 0o755);
  const started = performance.now();
  await cluster.start();
  console.log(`[cluster] three nodes synced in ${Math.round(performance.now() - started)} ms`);
  const [first] = cluster.urls();
  const bootstrap = connectDatabase(first!, { connectionLimit: 1 });
  await bootstrap.pool.query(`CREATE DATABASE ${DATABASE}`);
  await bootstrap.close();
  // Three servers start at once on the empty database: their migrations must not race.
  servers = await Promise.all(
    cluster.urls(DATABASE).map((url) => startServer({ env: { DATABASE_URL: url } })),
  );
  // Causal reads: a count right after the writes sees every one of them, wherever it committed.
  admin = connectDatabase(cluster.urls(DATABASE)[0]!, { connectionLimit: 2, galera: true });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
  await admin?.close();
  await cluster.destroy();
});

async function company(overrides: Partial<NewCompany> = {}): Promise<string> {
  return (
    await createCompany(admin.db, {
      name: `Cluster Co ${crypto.randomUUID().slice(0, 8)}`,
      plan: "enterprise",
      addons: ["api"],
      ...overrides,
    })
  ).token;
}

interface Answer {
  status: number;
  code?: string;
  id?: number;
  replayed: boolean;
}

async function post(
  server: RunningServer,
  token: string,
  path: string,
  body: unknown,
  key?: string,
): Promise<Answer | undefined> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(key ? { "idempotency-key": key } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  }).catch(() => undefined);
  if (!response) return undefined;
  const json = (await response.json().catch(() => ({}))) as {
    code?: string;
    data?: { id?: number };
  };
  return {
    status: response.status,
    code: json.code,
    id: json.data?.id,
    replayed: response.headers.get("idempotent-replayed") === "true",
  };
}

async function countRows(sql: string, params: unknown[]): Promise<number> {
  const [rows] = await admin.pool.query(sql, params);
  return Number((rows as { n: number }[])[0]!.n);
}

describe("three servers on a three-node Galera cluster", () => {
  test("every server migrated the same database and serves", async () => {
    for (const server of servers)
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    const migrations = await countRows("SELECT COUNT(*) AS n FROM __drizzle_migrations", []);
    expect(migrations).toBeGreaterThan(0);
  });

  test("on latin1 nodes (MariaDB as compiled) text of any script reads back and is found on every node", async () => {
    const [rows] = await admin.pool.query(
      `SELECT @@global.character_set_server AS server, DEFAULT_CHARACTER_SET_NAME AS db
      FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`,
      [DATABASE],
    );
    // The database took the nodes' default; its tables declare their own (docs/operations.md).
    expect(rows as unknown[]).toEqual([{ server: "latin1", db: "latin1" }]);
    const token = await company();
    const names = ["Zoë 🏗️ 王小明", "Ærøskøbing Façade — 東京 😀", "Ðặng Thị Ngọc 🚧"];
    const ids: unknown[] = await Promise.all(
      names.map(async (name, i) => (await post(servers[i]!, token, "/v1/workers", { name }))?.id),
    );
    for (const server of servers) {
      const read = async (path: string) =>
        (await (
          await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { data: { id: number; name: string }[] };
      const listed = await read("/v1/workers?limit=100");
      // In id order, and ids of different servers interleave.
      expect(listed.data.map((worker): unknown[] => [worker.id, worker.name])).toEqual(
        names.map((name, i) => [ids[i], name]).sort(([a], [b]) => Number(a) - Number(b)),
      );
      const found = await read(`/v1/workers?q=${encodeURIComponent("ZOE")}`);
      expect(found.data.map((worker) => worker.name)).toEqual([names[0]!]);
    }
  });

  test("a token revoked through one node is refused by the servers of the other nodes within 1 s", async () => {
    const owner = await company();
    const made = await fetch(`${servers[0]!.baseUrl}/v1/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "revoked on node 1", scopes: ["read"] }),
    });
    expect(made.status).toBe(201);
    const { id, token } = ((await made.json()) as { data: { id: number; token: string } }).data;
    const read = (server: RunningServer) =>
      fetch(`${server.baseUrl}/v1/workers`, { headers: { authorization: `Bearer ${token}` } });
    // Every server remembers the token before it is revoked.
    for (const server of servers) expect((await read(server)).status).toBe(200);
    const revoked = await fetch(`${servers[0]!.baseUrl}/v1/tokens/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(revoked.status).toBe(200);
    const since = Date.now();
    const refusedAfter = await Promise.all(
      servers.slice(1).map(async (server) => {
        for (;;) {
          const status = (await read(server)).status;
          if (status === 401 || Date.now() - since > 5_000)
            return { status, ms: Date.now() - since };
          await Bun.sleep(20);
        }
      }),
    );
    for (const { status, ms } of refusedAfter) {
      expect(status).toBe(401);
      expect(ms).toBeLessThan(1_000);
    }
  });

  test("one Idempotency-Key raced on all three servers runs once, every round", async () => {
    const token = await company();
    let once = 0;
    const statuses = new Map<string, number>();
    for (let round = 0; round < 15; round++) {
      const key = `race-${round}`;
      const body = { name: `Raced ${round}` };
      const answers = await Promise.all(
        servers.map(async (server) => {
          for (let attempt = 0; attempt < 50; attempt++) {
            const answer = await post(server, token, "/v1/workers", body, key);
            if (answer && answer.code !== "idempotency_in_progress" && answer.status !== 503)
              return answer;
            if (answer)
              statuses.set(
                `${answer.status} ${answer.code}`,
                (statuses.get(`${answer.status} ${answer.code}`) ?? 0) + 1,
              );
            await Bun.sleep(100);
          }
          throw new Error("no outcome");
        }),
      );
      for (const answer of answers)
        statuses.set(String(answer.status), (statuses.get(String(answer.status)) ?? 0) + 1);
      expect(answers.every((answer) => answer.status === 201)).toBe(true);
      expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
      if ((await countRows("SELECT COUNT(*) AS n FROM workers WHERE name = ?", [body.name])) === 1)
        once += 1;
    }
    console.log(
      `[cluster] one key raced on three servers: ${once} of 15 rounds ran once; answers ` +
        `${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(once).toBe(15);
  });

  test("a quota of 5 with 15 parallel creates spread over the three nodes: exactly 5", async () => {
    const token = await company({ plan: "pro", quotas: { workers: 5 } });
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        post(servers[i % 3]!, token, "/v1/workers", { name: `Quota ${i}` }),
      ),
    );
    const created = answers.filter((a) => a?.status === 201).length;
    const refused = answers.filter((a) => a?.status === 402 && a.code === "quota_exceeded").length;
    const other = answers
      .filter((a) => !a || (a.status !== 201 && a.status !== 402))
      .map((a) => a && `${a.status} ${a.code}`);
    console.log(
      `[cluster] quota 5, 15 creates over 3 nodes: ${created} created, ${refused} refused with ` +
        `402, other ${JSON.stringify(other)}`,
    );
    expect(other).toEqual([]);
    expect(created).toBe(5);
    expect(refused).toBe(10);
  });

  test("a unique custom value raced over the three nodes: one 201, every other 409 unique_violation", async () => {
    const token = await company();
    const key = `badge_${crypto.randomUUID().slice(0, 8)}`;
    const field = await post(servers[0]!, token, "/v1/custom-fields", {
      resource: "workers",
      key,
      label: `Badge ${key}`,
      type: "text",
      unique: true,
    });
    expect(field?.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(servers[i % 3]!, token, "/v1/workers", {
          name: `Badge ${i}`,
          custom_fields: { [key]: "B-1" },
        }),
      ),
    );
    const seen = answers.map((a) => (a ? `${a.status} ${a.code ?? ""}`.trim() : "no answer"));
    console.log(
      `[cluster] one unique custom value, 12 creates over 3 nodes: ${JSON.stringify(seen)}`,
    );
    expect(seen.filter((one) => one === "201")).toHaveLength(1);
    expect(seen.filter((one) => one === "409 unique_violation")).toHaveLength(11);
    expect(
      await countRows(
        "SELECT COUNT(*) AS n FROM custom_field_values WHERE field_id = ? AND value_text = ?",
        [field!.id, "B-1"],
      ),
    ).toBe(1);
    // Every node's server finds the one holder by the value.
    for (const server of servers) {
      const response = await fetch(
        `${server.baseUrl}/v1/workers?${encodeURIComponent(`cf.${key}`)}=B-1`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const list = (await response.json()) as { data: { id: number }[] };
      expect([response.status, list.data.map((one) => one.id)]).toEqual([
        200,
        [answers.find((a) => a?.status === 201)!.id!],
      ]);
    }
  });

  test("a rate-limited company writing through all three servers gets only 201 or 429", async () => {
    const token = await company({ plan: "pro", rateLimit: 30 });
    await freshRateWindow(10_000);
    // Six waves of 15 over three seconds: servers share their counts about once a second.
    const answers = [];
    for (let wave = 0; wave < 6; wave++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 15 }, (_, i) =>
            post(servers[i % 3]!, token, "/v1/clients", { name: `Limited ${wave}-${i}` }),
          ),
        )),
      );
      await Bun.sleep(500);
    }
    const counts = new Map<string, number>();
    for (const answer of answers)
      counts.set(
        answer ? String(answer.status) : "no answer",
        (counts.get(answer ? String(answer.status) : "no answer") ?? 0) + 1,
      );
    console.log(
      `[cluster] 90 writes of a 30/min company through 3 servers: ${JSON.stringify(Object.fromEntries(counts))}`,
    );
    expect([...counts.keys()].sort()).toEqual(["201", "429"]);
    // Each server counts in memory and shares about once a second (docs/limits.md): the overshoot is
    // at most what the other servers let through in that second.
    expect(counts.get("201")!).toBeGreaterThanOrEqual(30);
    expect(counts.get("201")!).toBeLessThanOrEqual(60);
  });

  test("a write that another node's commit aborts in the middle of its statements commits none of them", async () => {
    await company();
    const companyId = await countRows(
      "SELECT company_id AS n FROM api_tokens ORDER BY id DESC LIMIT 1",
      [],
    );
    const node1 = connectDatabase(cluster.urls(DATABASE)[0]!, { connectionLimit: 1, galera: true });
    try {
      const counter = (name: string, value: number) => ({
        text: "INSERT INTO company_counters (company_id, name, value) VALUES (?, ?, ?)",
        values: [companyId, name, value],
      });
      const started = performance.now();
      // The write holds the row "probe" and sleeps in the middle of its statements...
      const write = inWriteTransaction(node1.writer, (tx) =>
        tx.commit([
          counter("probe", 1),
          { text: "DO SLEEP(2)", values: [] },
          counter("probe-tail", 1),
        ]),
      ).then(
        () => "committed",
        (error: { errno?: number }) => `error ${error.errno}`,
      );
      await Bun.sleep(500);
      // ...when node 2 commits the same row: replicated to node 1, it aborts the write there.
      const other = connectDatabase(cluster.urls(DATABASE)[1]!, {
        connectionLimit: 1,
        galera: true,
      });
      await other.pool.query(
        "INSERT INTO company_counters (company_id, name, value) VALUES (?, 'probe', 2)",
        [companyId],
      );
      await other.close();
      const outcome = await write;
      const [rows] = await admin.pool.query(
        "SELECT name, value FROM company_counters WHERE company_id = ? AND name LIKE 'probe%' ORDER BY name",
        [companyId],
      );
      console.log(
        `[cluster] a write aborted by node 2 after ${Math.round(performance.now() - started)} ` +
          `ms: ${outcome}; rows left ${JSON.stringify(rows)}`,
      );
      // A deadlock (retried by the server), and nothing of the statements after the abort.
      expect(outcome).toBe("error 1213");
      expect(
        (rows as { name: string; value: number }[]).map((row) => [row.name, Number(row.value)]),
      ).toEqual([["probe", 2]]);
    } finally {
      await node1.close();
    }
  });

  test(
    "update batches on node 1 racing PATCHes of the same records on node 2: no write is " +
      "lost, each item updated or refused by its if_match",
    async () => {
      const token = await company();
      const call = async (server: RunningServer, method: string, path: string, body?: unknown) => {
        for (;;) {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const json = (await response.json()) as any;
          if (response.status < 500) return { status: response.status, json };
          await Bun.sleep(50);
        }
      };
      const RECORDS = 200;
      const created = await call(servers[0]!, "POST", "/v1/workers/batch", {
        items: Array.from({ length: RECORDS }, (_, i) => ({ name: `Race ${i}` })),
      });
      const ids: number[] = created.json.data.results.map((result: { id: number }) => result.id);
      const seen = new Map<number, string>();
      for (const after of [ids[0]! - 1, ids[99]!]) {
        const page = await call(servers[0]!, "GET", `/v1/workers?after_id=${after}&limit=100`);
        for (const record of page.json.data) seen.set(record.id, record.updated_at);
      }
      const outcomes = new Map<number, string>();
      const batches = (async () => {
        for (let first = 0; first < RECORDS; first += 25) {
          const slice = ids.slice(first, first + 25);
          const answer = await call(servers[0]!, "POST", "/v1/workers/batch", {
            operation: "update",
            items: slice.map((id) => ({ id, if_match: seen.get(id), name: `Batch ${id}` })),
          });
          for (const result of answer.json.data.results)
            outcomes.set(slice[result.index]!, result.action ?? result.error.code);
        }
      })();
      // The PATCHes go from the last record back, so the two meet: early ones refuse batch items
      // (412), late ones follow them, and around the middle they race.
      let next = RECORDS;
      const patches = Array.from({ length: 6 }, async () => {
        while (next > 0) {
          const id = ids[--next]!;
          expect(
            (await call(servers[1]!, "PATCH", `/v1/workers/${id}`, { phone: `+1 ${id}` })).status,
          ).toBe(200);
        }
      });
      await Promise.all([batches, ...patches]);
      const [rows] = await admin.pool.query(
        "SELECT id, name, phone FROM workers WHERE id IN (?) ORDER BY id",
        [ids],
      );
      // Each record's events in commit order: the batch's (a name) and the PATCH's (a phone).
      const [history] = await admin.pool.query(
        "SELECT record_id, data FROM events WHERE record_id IN (?) AND type = 'worker.updated' " +
          "ORDER BY company_id, seq",
        [ids],
      );
      const changed = new Map<number, string[]>();
      for (const event of history as { record_id: number; data: string }[]) {
        const fields = Object.keys(JSON.parse(event.data).changes).join(",");
        changed.set(event.record_id, [...(changed.get(event.record_id) ?? []), fields]);
      }
      const tally: Record<string, number> = {};
      for (const row of rows as { id: number; name: string; phone: string }[]) {
        const outcome = outcomes.get(row.id)!;
        tally[outcome] = (tally[outcome] ?? 0) + 1;
        // Every PATCH holds, whichever committed first; the batch's name only where its item says so.
        expect(row.phone).toBe(`+1 ${row.id}`);
        expect(row.name).toBe(
          outcome === "updated" ? `Batch ${row.id}` : `Race ${ids.indexOf(row.id)}`,
        );
        expect(["updated", "precondition_failed"]).toContain(outcome);
        // An item updated passed its if_match: the PATCH must have committed after it, never before.
        expect(changed.get(row.id)).toEqual(outcome === "updated" ? ["name", "phone"] : ["phone"]);
      }
      console.log(
        `[cluster] update batches against PATCHes on another node: ${JSON.stringify(tally)}`,
      );
    },
  );

  test(
    "one CSV imported through the three servers at once, in batches of three sizes and one " +
      "run backwards: every good row once",
    async () => {
      const token = await company();
      const companyId = await countRows(
        "SELECT company_id AS n FROM api_tokens ORDER BY id DESC LIMIT 1",
        [],
      );
      const ROWS = 9_000;
      const dir = tempDir();
      const lines = Array.from(
        { length: ROWS },
        (_, i) =>
          `Importer ${i + 1},${(i + 1) % 100 === 0 ? `bad${i + 1}(at)example.com` : `importer${i + 1}@example.com`}`,
      );
      const forwards = path.join(dir, "forwards.csv");
      const backwards = path.join(dir, "backwards.csv");
      writeFileSync(forwards, `name,email\n${lines.join("\n")}\n`);
      writeFileSync(backwards, `name,email\n${[...lines].reverse().join("\n")}\n`);
      const good = ROWS - ROWS / 100;
      // The same rows race on the same item keys in batches of different composition (and order).
      const runs = await Promise.all(
        [
          [forwards, "250"],
          [forwards, "167"],
          [backwards, "100"],
        ].map(([file, size], n) =>
          erpFor(servers[n]!.baseUrl, token)(
            ["import", "workers", file!, "--batch-size", size!, "--verbose", "-o", "json"],
            { env: { XDG_STATE_HOME: path.join(dir, "state") } },
          ),
        ),
      );
      const summaries = runs.map((run) => JSON.parse(run.stdout));
      const answers = runs.map((run) => {
        const statuses = new Map<string, number>();
        for (const [, status] of run.stderr.matchAll(/^< (\d{3}) /gm))
          statuses.set(status!, (statuses.get(status!) ?? 0) + 1);
        return Object.fromEntries(statuses);
      });
      const stored = await countRows(
        "SELECT COUNT(*) AS n FROM workers WHERE company_id = ? AND deleted_at IS NULL",
        [companyId],
      );
      const distinct = await countRows(
        "SELECT COUNT(DISTINCT email) AS n FROM workers WHERE company_id = ? AND deleted_at IS NULL",
        [companyId],
      );
      const events = await countRows(
        "SELECT COUNT(*) AS n FROM events WHERE company_id = ? AND type = 'worker.created'",
        [companyId],
      );
      const listed = (await (
        await fetch(`${servers[0]!.baseUrl}/v1/workers?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { meta: { total: number } };
      console.log(
        `[cluster] ${ROWS} rows (${ROWS - good} bad) imported through 3 servers at once: ` +
          summaries
            .map(
              (s, n) =>
                `server ${n + 1}: created ${s.created}, already imported ${s.already_imported}, ` +
                `rejected ${s.rejected}, ${s.seconds} s, answers ` +
                `${JSON.stringify(answers[n])}`,
            )
            .join("; ") +
          `; stored ${stored}, ${distinct} distinct emails, ${events} worker.created events, list ` +
          `total ${listed.meta.total}`,
      );
      expect(runs.map((run) => run.code)).toEqual([3, 3, 3]);
      for (const summary of summaries) {
        expect(summary).toMatchObject({
          rows: ROWS,
          rejected: ROWS - good,
          not_imported: 0,
          stopped: null,
        });
        expect(summary.created + summary.already_imported).toBe(good);
      }
      // Each row was written by one of the three; the other two got its stored result back.
      expect(summaries.reduce((sum, summary) => sum + summary.created, 0)).toBe(good);
      expect(stored).toBe(good);
      expect(distinct).toBe(good);
      // Nothing half-written either: one event per record, and the live count the quota and list totals use.
      expect(events).toBe(good);
      expect(listed.meta.total).toBe(good);
    },
  );

  test(
    "a node SIGKILLed under keyed load: clients retry elsewhere, every row exactly once, no " +
      "4xx; the node returns and its server serves",
    async () => {
      const token = await company();
      const ROWS = 300;
      const figures = {
        requests: 0,
        unavailable: 0,
        noAnswer: 0,
        clientErrors: [] as string[],
        serverErrors: [] as string[],
      };
      let next = 0;
      let done = 0;
      const send = async (row: number): Promise<void> => {
        for (let attempt = 0; attempt < 200; attempt++) {
          // Start on the row's own server; after a failure move on, as a load balancer would.
          const server = servers[(row + attempt) % 3]!;
          figures.requests += 1;
          const answer = await post(
            server,
            token,
            "/v1/workers",
            { name: `Survivor ${row}` },
            `survivor-${row}`,
          );
          if (!answer) figures.noAnswer += 1;
          else if (answer.status === 201) return;
          else if (answer.status === 503 || answer.code === "idempotency_in_progress")
            figures.unavailable += 1;
          else if (answer.status < 500)
            return void figures.clientErrors.push(`${answer.status} ${answer.code}`);
          else figures.serverErrors.push(`${answer.status} ${answer.code}`);
          await Bun.sleep(100);
        }
        throw new Error(`row ${row} never went through`);
      };
      const clients = Array.from({ length: 12 }, async () => {
        while (next < ROWS) {
          const row = next++;
          await send(row);
          done += 1;
        }
      });
      const victim = cluster.nodes[2]!;
      const fault = (async () => {
        while (done < ROWS / 3) await Bun.sleep(10);
        await cluster.stopNode(victim, "SIGKILL");
      })();
      await Promise.all(clients);
      await fault;
      const copies = await admin.pool.query(
        "SELECT name, COUNT(*) AS n FROM workers WHERE name LIKE 'Survivor %' GROUP BY name",
      );
      const rows = copies[0] as { name: string; n: number }[];
      const duplicated = rows.filter((r) => Number(r.n) > 1).length;
      console.log(
        `[cluster] node3 SIGKILLed under keyed load: rows ${ROWS}, requests ${figures.requests}, ` +
          `503/in-progress ${figures.unavailable}, ` +
          `no answer ${figures.noAnswer}, 4xx ${figures.clientErrors.length}, other 5xx ` +
          `${figures.serverErrors.length}, stored ${rows.length}, duplicated ${duplicated}, ` +
          `lost ${ROWS - rows.length}`,
      );
      expect(figures.clientErrors).toEqual([]);
      expect(figures.serverErrors).toEqual([]);
      expect(rows.length).toBe(ROWS);
      expect(duplicated).toBe(0);

      // The node returns; its server (never restarted) serves again by itself.
      const restarted = performance.now();
      await cluster.startNode(victim);
      const orphan = servers[2]!;
      let healthy = false;
      for (let i = 0; i < 60 && !healthy; i++) {
        healthy = (await fetch(`${orphan.baseUrl}/healthz`).catch(() => undefined))?.status === 200;
        if (!healthy) await Bun.sleep(500);
      }
      const after = await post(
        orphan,
        token,
        "/v1/workers",
        { name: "After the return" },
        "after-return",
      );
      console.log(
        `[cluster] node3 rejoined and its server answered again ` +
          `${Math.round(performance.now() - restarted)} ms after the restart`,
      );
      expect(healthy).toBe(true);
      expect(after?.status).toBe(201);
    },
  );

  test(
    "the change feed on the cluster: a follower sees every write of three servers on three " +
      "nodes once, in commit order, with no gaps",
    async () => {
      const token = await company();
      const companyId = await countRows(
        "SELECT company_id AS n FROM api_tokens ORDER BY id DESC LIMIT 1",
        [],
      );
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const ids: number[] = [];
      for (let i = 0; i < 6; i++)
        ids.push((await post(servers[0]!, token, "/v1/clients", { name: `Fed ${i}` }))!.id!);
      const seen: {
        id: string;
        record_id: number;
        type: string;
        data: { record: { billing_address: string | null } };
      }[] = [];
      let writing = true;
      const follower = (async () => {
        let cursor: string | null = null;
        for (;;) {
          const finished = !writing;
          // Follows through node 2 while the writes land on all three.
          const page = (await (
            await fetch(
              `${servers[1]!.baseUrl}/v1/events?limit=100${cursor ? `&after=${cursor}` : ""}`,
              { headers },
            )
          ).json()) as { data: typeof seen; meta: { next_cursor: string | null } };
          seen.push(...page.data);
          cursor = page.meta.next_cursor;
          if (finished && page.data.length === 0) return;
          if (page.data.length === 0) await Bun.sleep(20);
        }
      })();
      await Promise.all(
        servers.map(async (server, n) => {
          for (let round = 0; round < 20; round++) {
            const target = ids[(round + n) % ids.length]!;
            for (let attempt = 0; attempt < 20; attempt++) {
              const response = await fetch(`${server.baseUrl}/v1/clients/${target}`, {
                method: "PATCH",
                headers,
                body: JSON.stringify({ billing_address: `node ${n} round ${round}` }),
              });
              await response.arrayBuffer();
              if (response.status === 200) break;
              expect(response.status).toBe(503);
            }
            expect(
              (await post(server, token, "/v1/clients", { name: `From node ${n} round ${round}` }))
                ?.status,
            ).toBe(201);
          }
        }),
      );
      writing = false;
      await follower;
      const [rows] = await admin.pool.query(
        "SELECT seq, id FROM events WHERE company_id = ? ORDER BY seq",
        [companyId],
      );
      const stored = rows as { seq: number; id: string }[];
      expect(stored.map((row) => Number(row.seq))).toEqual(
        Array.from({ length: stored.length }, (_, i) => i + 1),
      );
      expect(seen.map((event) => event.id)).toEqual(stored.map((row) => row.id));
      for (const id of ids) {
        const updates = seen.filter(
          (event) => event.record_id === id && event.type === "client.updated",
        );
        const [current] = await admin.pool.query(
          "SELECT billing_address FROM clients WHERE id = ?",
          [id],
        );
        expect(updates.at(-1)?.data.record.billing_address).toBe(
          (current as { billing_address: string }[])[0]!.billing_address,
        );
      }
      console.log(
        `[cluster] change feed: ${stored.length} events committed through 3 nodes, ${seen.length} ` +
          `seen by a follower on node 2, 0 gaps, 0 duplicates`,
      );
    },
  );

  test(
    "a long-poll follower (wait=30) on node 2 sees each of 200 writes through three nodes " +
      "within 1 s of its commit, in order, exactly once",
    async () => {
      const token = await company();
      const companyId = await countRows(
        "SELECT company_id AS n FROM api_tokens ORDER BY id DESC LIMIT 1",
        [],
      );
      const headers = { authorization: `Bearer ${token}` };
      const WRITES = 200;
      const feed = async (query: string) => {
        const response = await fetch(`${servers[1]!.baseUrl}/v1/events?${query}`, {
          headers,
          signal: AbortSignal.timeout(45_000),
        });
        expect(response.status).toBe(200);
        return (await response.json()) as {
          data: { id: string; record_id: number }[];
          meta: { next_cursor: string };
        };
      };
      const seen: string[] = [];
      const seenAt = new Map<number, number>();
      const answeredAt = new Map<number, number>();
      let cursor = (await feed("after=latest")).meta.next_cursor;
      let polls = 0;
      const follower = (async () => {
        while (seen.length < WRITES) {
          const page = await feed(`after=${cursor}&wait=30&limit=100`);
          polls += 1;
          const now = performance.now();
          for (const event of page.data) {
            seen.push(event.id);
            if (!seenAt.has(event.record_id)) seenAt.set(event.record_id, now);
          }
          cursor = page.meta.next_cursor;
        }
      })();
      // Each server (on its own node) writes in turn, pausing a moment so the follower is waiting.
      let next = 0;
      await Promise.all(
        servers.map(async (server, n) => {
          while (next < WRITES) {
            const i = next++;
            const created = await post(server, token, "/v1/clients", { name: `Live ${n}-${i}` });
            expect(created?.status).toBe(201);
            answeredAt.set(created!.id!, performance.now());
            await Bun.sleep(Math.random() * 40);
          }
        }),
      );
      await follower;
      const [rows] = await admin.pool.query(
        "SELECT id FROM events WHERE company_id = ? ORDER BY seq",
        [companyId],
      );
      expect(seen).toEqual((rows as { id: string }[]).map((row) => row.id));
      expect(new Set(seen).size).toBe(WRITES);
      const latencies = [...answeredAt]
        .map(([id, answered]) => Math.max(0, seenAt.get(id)! - answered))
        .sort((a, b) => a - b);
      const at = (p: number): number =>
        Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!);
      console.log(
        `[cluster] long-poll follower on node 2: ${WRITES} writes through 3 nodes, ${polls} ` +
          `long-polls, latency from the write's answer p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ` +
          `max ${at(1)} ms`,
      );
      expect(latencies).toHaveLength(WRITES);
      expect(latencies.at(-1)!).toBeLessThan(1_000);
    },
  );

  test("throughput of three servers against one, on the same cluster (printed, not asserted)", async () => {
    const token = await company();
    const run = async (targets: RunningServer[], label: string): Promise<number> => {
      const COUNT = 600;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 24 }, async () => {
          while (next < COUNT) {
            const i = next++;
            const answer = await post(targets[i % targets.length]!, token, "/v1/clients", {
              name: `${label} ${i}`,
            });
            if (answer?.status !== 201)
              throw new Error(`create answered ${answer?.status} ${answer?.code}`);
          }
        }),
      );
      return Math.round((COUNT / (performance.now() - started)) * 1000);
    };
    const one = await run([servers[0]!], "one");
    const three = await run(servers, "three");
    console.log(
      `[cluster] creates/s on the cluster: one server ${one}, three servers ${three} ` +
        `(×${(three / one).toFixed(2)}; all on one 2-core machine)`,
    );
    expect(one).toBeGreaterThan(0);
  });
});
