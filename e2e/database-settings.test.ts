// Any MySQL-compatible database as operators configure it (docs/operations.md, "Database settings"):
// a private MariaDB with latin1 server defaults (MariaDB's compiled default, MySQL 5.7's), a time
// zone of +05:30, MySQL 8's default sql_mode, READ COMMITTED, a 5 s wait_timeout, a 4 MiB packet
// limit and a binary log in STATEMENT format (which refuses InnoDB writes under READ COMMITTED
// unless a session says ROW). On it, a database created with the server's defaults
// (`CREATE DATABASE erp_fresh`), and one left by the previous release: its migrations applied on a
// latin1 database, with rows of accented text. The server on each: Unicode text round-trips through
// every write path and `q`, unique values stay exact, timestamps are UTC, quotas hold under 20
// concurrent creates, a 500-item batch of long text is accepted, and connections the database drops
// while idle cost no request. The converted tables end up as those of a database the server made.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { connectDatabase, createCompany, migrateDatabase } from "@erp/server/admin";
import mysql from "mysql2/promise";
import { type AppDeps, buildApp } from "@erp/server/app";
import { Api, type ApiResponse } from "@erp/testing/api";
import { PrivateDatabase } from "@erp/testing/private-database";
import { ROOT, startServer, type RunningServer } from "@erp/testing/server";

setDefaultTimeout(300_000);

const MYSQL8_SQL_MODE =
  "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE," +
  "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";
const database = new PrivateDatabase([
  "--character-set-server=latin1",
  "--collation-server=latin1_swedish_ci",
  "--default-time-zone=+05:30",
  `--sql-mode=${MYSQL8_SQL_MODE}`,
  "--transaction-isolation=READ-COMMITTED",
  "--wait-timeout=5",
  "--max-allowed-packet=4M",
  "--log-bin",
  "--binlog-format=STATEMENT",
]);
const MIGRATIONS = path.join(ROOT, "server", "drizzle");
/** Text a person may type, none of it latin1 but the accents: accents, CJK, emoji. */
const NAMES = [
  "Zoë 🏗️ 王小明",
  "Ærøskøbing Façade — 東京 😀",
  "Ðặng Thị Ngọc 🚧",
  "Müller & Söhne 🧱 김",
];

/** Every 5xx any check met: there must be none. */
const failures: string[] = [];
const noted = (what: string, response: ApiResponse): ApiResponse => {
  if (response.status >= 500) failures.push(`${what}: ${response.status} ${response.text}`);
  return response;
};

beforeAll(async () => {
  await database.start();
});

afterAll(async () => {
  await database.destroy();
  expect(failures).toEqual([]);
});

/**
 * The previous release's database: every migration but the one that declared the character sets,
 * applied on a latin1 database as drizzle applies them, with the migration lease table as that
 * release made it. Migrations written after that one are applied too (their new columns declare
 * utf8mb4 in latin1 tables, as they would on such a database), so the app of this checkout can
 * write the old rows through its own write path.
 */
async function previousRelease(name: string): Promise<void> {
  await database.query(`CREATE DATABASE ${name}`);
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  const change = journal.entries.findIndex((entry) =>
    entry.tag.endsWith("declared-character-sets"),
  );
  expect(change).toBeGreaterThan(0);
  const connection = await mysql.createConnection({ uri: database.url(name) });
  try {
    // The binary log in rows, as a server of the previous release needed it here.
    await connection.query("SET SESSION binlog_format = 'ROW'");
    await connection.query(
      "CREATE TABLE __drizzle_migrations (id serial primary key, hash text not null, created_at bigint)",
    );
    for (const entry of journal.entries.filter((_, index) => index !== change)) {
      const text = readFileSync(path.join(MIGRATIONS, `${entry.tag}.sql`), "utf8");
      for (const statement of text.split("--> statement-breakpoint"))
        await connection.query(statement);
      await connection.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)", [
        createHash("sha256").update(text).digest("hex"),
        entry.when,
      ]);
    }
    await connection.query(
      `CREATE TABLE erp_migration_lock (id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
        owner CHAR(36) NOT NULL, expires_at DATETIME(3) NOT NULL)`,
    );
  } finally {
    await connection.end();
  }
}

/** What the previous release stored: records of latin1-representable accented text, written through the write path. */
const OLD_ROWS = {
  workers: [
    { name: "Zoë Müller", email: "zoe@example.com", external_id: "crème-brûlée" },
    { name: "Ångström Façades", external_id: "ABC" },
    { name: "Ærø Dæk", external_id: "abc" },
  ],
  projects: [{ name: "Façade Rénovation", code: "CAFÉ-1", address: "Hauptstraße 5, Köln" }],
};

/**
 * Writes the old rows through the app in this process, on the tables as they are (latin1). Its
 * sessions write the binary log in rows, as a server of the previous release needed to here.
 */
async function oldRows(name: string): Promise<{ token: string; latin1Refusal: number }> {
  const handle = connectDatabase(database.url(name), {
    connectionLimit: 2,
    session: ["SESSION binlog_format = 'ROW'"],
  });
  try {
    const { token } = await createCompany(handle.db, {
      name: "Café Zoë Bau GmbH",
      plan: "enterprise",
      addons: ["api"],
    });
    const inert = new Proxy({}, { get: () => () => {} });
    const app = buildApp({ database: handle, meter: inert } as unknown as AppDeps);
    const send = (method: string, path: string, body: unknown) =>
      app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    for (const [resource, rows] of Object.entries(OLD_ROWS))
      for (const row of rows) expect((await send("POST", `/v1/${resource}`, row)).status).toBe(201);
    // The tables are latin1 indeed: what the previous release refused with a 500.
    const refused = await send("POST", "/v1/workers", { name: NAMES[0] });
    return { token, latin1Refusal: refused.status };
  } finally {
    await handle.close();
  }
}

interface Target {
  name: string;
  server: RunningServer;
  /** An enterprise company's client. */
  api: Api;
}

/** A connection pool for the test's own statements, set up as the server's are (`bun run admin` does the same). */
async function adminOn(name: string) {
  const facts = await migrateDatabase(database.url(name));
  return connectDatabase(database.url(name), { ...facts, connectionLimit: 1 });
}

async function serve(name: string): Promise<Target> {
  const server = await startServer({
    env: { DATABASE_URL: database.url(name), LOG_LEVEL: "info" },
  });
  const handle = await adminOn(name);
  try {
    const { token } = await createCompany(handle.db, {
      name: `Ünïcödé Bau ${name}`,
      plan: "enterprise",
      addons: ["api"],
    });
    return { name, server, api: new Api(server.baseUrl, token) };
  } finally {
    await handle.close();
  }
}

/** The checks each database passes, with the server on it. */
function checks(target: () => Target) {
  test("the start fixed per session what the server's settings need and named nothing it could not fix", () => {
    const logs = target().server.logs();
    const start = logs.split("\n").find((line) => line.includes('"database server:'));
    expect(JSON.parse(start!)).toMatchObject({
      character_set_server: "latin1",
      time_zone: "+05:30",
      isolation: "READ-COMMITTED",
      wait_timeout: 5,
      max_allowed_packet: 4 * 1024 * 1024,
      session_fixes: ["SESSION binlog_format = 'ROW'"],
      pool_idle_ms: 3000,
    });
    expect(logs).not.toContain('"database setting:');
  });

  test("Unicode text round-trips through every write path, the feed and q", async () => {
    await unicodeRoundTrips(target().api);
  });

  test("unique values stay exact: case and accents distinct, trailing spaces alike", async () => {
    const { api } = target();
    for (const [a, b] of [
      ["ABC", "abc"],
      ["cafe", "café"],
      ["😀", "😁"],
    ]) {
      expect(
        noted("unique a", await api.post("/v1/workers", { name: "u", external_id: `u-${a}` }))
          .status,
      ).toBe(201);
      expect(
        noted("unique b", await api.post("/v1/workers", { name: "u", external_id: `u-${b}` }))
          .status,
      ).toBe(201);
    }
    expect((await api.post("/v1/workers", { name: "u", external_id: "pad" })).status).toBe(201);
    const padded = noted(
      "padded",
      await api.post("/v1/workers", { name: "u", external_id: "pad " }),
    );
    expect([padded.status, padded.body.code]).toEqual([409, "unique_violation"]);
    expect((await api.post("/v1/projects", { name: "p", code: "X-ü" })).status).toBe(201);
    expect((await api.post("/v1/projects", { name: "p", code: "x-Ü" })).status).toBe(201);
    const listed = await api.get(`/v1/workers?external_id=${encodeURIComponent("u-café")}`);
    expect(listed.body.data.map((worker: { external_id: string }) => worker.external_id)).toEqual([
      "u-café",
    ]);
  });

  test("timestamps are UTC whatever the server's time zone", async () => {
    const { api, name } = target();
    const before = Date.now();
    const created = await api.post(
      "/v1/workers",
      { name: "clock" },
      { headers: { prefer: "return=representation" } },
    );
    const record = created.body.data.record;
    expect(record.created_at).toEndWith("Z");
    expect(Math.abs(Date.parse(record.created_at) - before)).toBeLessThan(60_000);
    // Stored as UTC: the column's own value (a DATETIME has no zone) is the answer's.
    const [stored] = await database.query<{ at: string }[]>(
      "SELECT CAST(created_at AS CHAR) AS at FROM workers WHERE id = ?",
      [record.id],
      name,
    );
    expect(`${stored!.at.replace(" ", "T")}Z`).toBe(record.created_at);
    const recent = await api.get(
      `/v1/workers?updated_since=${new Date(before - 60_000).toISOString()}&limit=100`,
    );
    expect(recent.body.data.map((worker: { id: number }) => worker.id)).toContain(record.id);
    const later = await api.get(
      `/v1/workers?updated_since=${new Date(before + 60_000).toISOString()}`,
    );
    expect(later.body.data).toEqual([]);
  });

  test("quotas are exact under 20 concurrent creates", async () => {
    const { server, name } = target();
    const handle = await adminOn(name);
    const { token } = await createCompany(handle.db, {
      name: "Frëe Co",
      plan: "free",
      addons: ["api"],
    });
    await handle.close();
    const api = new Api(server.baseUrl, token);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.post("/v1/workers", { name: `Wörker ${i} 🦺` })),
    );
    const statuses = answers.map((answer) => noted("quota", answer).status).sort();
    expect(statuses.filter((status) => status === 201).length).toBe(5);
    expect(statuses.filter((status) => status === 402).length).toBe(15);
    expect((await api.get("/v1/usage")).body.data.quotas.workers.used).toBe(5);
  });

  test("a full 500-item batch of long text is accepted, created and then updated", async () => {
    await longTextBatches(target().api);
  });

  test("connections the database dropped while idle cost no request", async () => {
    const { api, server } = target();
    // wait_timeout is 5 s: every connection the server held is gone (or closed by its pool) by now.
    await Bun.sleep(6_500);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? api.get("/v1/workers?q=zo&limit=5")
          : api.post("/v1/workers", { name: `Idle ${i} Zoë` }),
      ),
    );
    expect(
      answers.map((answer) => noted("after idle", answer).status).filter((s) => s >= 500),
    ).toEqual([]);
    expect(server.logs()).not.toContain('"level":"error"');
  });
}

/** Each write path, then the record as read, as listed by q and as the feed tells. */
async function unicodeRoundTrips(api: Api): Promise<void> {
  const [first, second, third, fourth] = NAMES as [string, string, string, string];
  const read = async (id: number): Promise<string> =>
    (await api.get(`/v1/workers/${id}`)).body.data.name;
  const created = noted(
    "create",
    await api.post("/v1/workers", { name: first, email: "zoë@example.com" }),
  );
  expect(created.status).toBe(201);
  const id = created.body.data.id as number;
  expect(await read(id)).toBe(first);
  expect(noted("patch", await api.patch(`/v1/workers/${id}`, { name: second })).status).toBe(200);
  expect(await read(id)).toBe(second);

  const batch = noted(
    "batch create",
    await api.post("/v1/workers/batch", { items: [{ name: third, external_id: "bätch-1" }] }),
  );
  const batchId = batch.body.data.results[0].id as number;
  expect(await read(batchId)).toBe(third);
  noted(
    "batch update",
    await api.post("/v1/workers/batch", {
      operation: "update",
      items: [{ id: batchId, name: fourth }],
    }),
  );
  expect(await read(batchId)).toBe(fourth);
  const upserted = noted(
    "batch upsert",
    await api.post("/v1/workers/batch", {
      items: [{ name: first, external_id: "bätch-1" }],
      on_conflict: "update",
    }),
  );
  expect(upserted.body.data.results[0]).toMatchObject({ id: batchId, action: "updated" });
  expect(await read(batchId)).toBe(first);

  const key = encodeURIComponent("ü-王-🏗️");
  const put = noted(
    "put",
    await api.request("PUT", `/v1/workers/by-external-id/${key}`, { body: { name: third } }),
  );
  expect(put.status).toBe(201);
  expect(await read(put.body.data.id)).toBe(third);
  expect(
    noted(
      "put again",
      await api.request("PUT", `/v1/workers/by-external-id/${key}`, { body: { name: second } }),
    ).status,
  ).toBe(200);
  expect(await read(put.body.data.id)).toBe(second);

  expect(noted("delete", await api.delete(`/v1/workers/${id}`)).status).toBe(200);
  expect(noted("restore", await api.post(`/v1/workers/${id}/restore`)).status).toBe(200);
  expect(await read(id)).toBe(second);

  // q: a substring, case and accents aside, CJK as typed.
  const found = async (q: string): Promise<string[]> =>
    (await api.get(`/v1/workers?q=${encodeURIComponent(q)}&limit=100`)).body.data.map(
      (worker: { name: string }) => worker.name,
    );
  expect(await found("王小明")).toEqual(expect.arrayContaining([first]));
  expect(await found("ÆRØSKØBING")).toEqual(expect.arrayContaining([second]));
  expect(await found("zoe")).toEqual(expect.arrayContaining([first]));
  expect(await found("東京")).toEqual(expect.arrayContaining([second]));
  const feed = (await api.get(`/v1/workers/${id}/events`)).body.data as {
    data: { record: { name: string } };
  }[];
  expect(feed.map((event) => event.data.record.name)).toEqual(
    expect.arrayContaining([first, second]),
  );
}

/**
 * 500 projects whose text fields are as long as they may be, of characters the SQL text escapes
 * (quotes, backslashes) or writes in several bytes: created, then updated by an upsert. The
 * update's text (records, and events with each field before and after) is about 5.5 MB, over the
 * 4 MiB packet: the server sends it in parts.
 */
async function longTextBatches(api: Api): Promise<void> {
  const fill = (unit: string, length: number, head: string) =>
    (head + unit.repeat(length)).slice(0, length);
  const items = (round: string, unit: string) =>
    Array.from({ length: 500 }, (_, i) => ({
      name: fill(unit, 200, `${round}${i} é王 `),
      address: fill(unit, 500, `${round} `),
      code: fill(unit, 32, `${round}${i}-`),
      external_id: fill("'", 255, `long-${i}-`),
    }));
  for (const [round, unit, action] of [
    ["A", "'", "created"],
    ["B", "\\", "updated"],
  ] as const) {
    const body = { items: items(round, unit), on_conflict: "update" };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(1024 * 1024);
    const answer = noted(`batch ${round}`, await api.post("/v1/projects/batch", body));
    expect(answer.status).toBe(200);
    expect(answer.body.data[action]).toBe(500);
    const id = answer.body.data.results[499].id as number;
    const stored = (await api.get(`/v1/projects/${id}`)).body.data;
    expect([stored.name, stored.address, stored.code]).toEqual([
      body.items[499]!.name,
      body.items[499]!.address,
      body.items[499]!.code,
    ]);
  }
}

/** Each column of our tables as information_schema describes it: what a database of ours holds. */
async function columnsOf(name: string): Promise<string[]> {
  const rows = await database.query<Record<string, unknown>[]>(
    `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_DEFAULT,
      c.CHARACTER_SET_NAME, c.COLLATION_NAME, c.EXTRA, c.GENERATION_EXPRESSION, t.TABLE_COLLATION
    FROM information_schema.COLUMNS c JOIN information_schema.TABLES t
      ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
    WHERE c.TABLE_SCHEMA = ? ORDER BY c.TABLE_NAME, c.COLUMN_NAME`,
    [name],
  );
  return rows.map((row) => JSON.stringify(Object.values(row)));
}

describe("a database created with latin1 defaults", () => {
  let target: Target;
  beforeAll(async () => {
    await database.query("CREATE DATABASE erp_fresh");
    target = await serve("erp_fresh");
  });
  afterAll(async () => {
    await target?.server.stop();
  });
  checks(() => target);
});

describe("a database left by the previous release, with latin1 tables", () => {
  let target: Target;
  let old: { token: string; latin1Refusal: number };
  beforeAll(async () => {
    await previousRelease("erp_legacy");
    old = await oldRows("erp_legacy");
    target = await serve("erp_legacy");
  });
  afterAll(async () => {
    await target?.server.stop();
  });

  test("was latin1 (an emoji was a 500), and the start converted its tables, saying so", async () => {
    expect(old.latin1Refusal).toBe(500);
    const converted = target.server
      .logs()
      .split("\n")
      .filter((line) => line.includes("converted a table's text"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(converted.map((line) => line.table)).toEqual(
      expect.arrayContaining([
        "workers",
        "projects",
        "events",
        "companies",
        "__drizzle_migrations",
      ]),
    );
    // name, email, phone and status; external_id was utf8mb4_bin already.
    expect(converted.find((line) => line.table === "workers")).toMatchObject({
      columns: 4,
      from: ["latin1_swedish_ci"],
      to: ["utf8mb4_unicode_ci"],
      table_default_was: "latin1_swedish_ci",
      algorithm: "LOCK=SHARED",
    });
  });

  test("the old rows' text is intact", async () => {
    const api = new Api(target.server.baseUrl, old.token);
    for (const [resource, rows] of Object.entries(OLD_ROWS)) {
      const listed = (await api.get(`/v1/${resource}?limit=100`)).body.data as Record<
        string,
        string
      >[];
      for (const row of rows) expect(listed).toContainEqual(expect.objectContaining(row));
    }
    const found = (await api.get("/v1/workers?q=MULLER")).body.data as { name: string }[];
    expect(found.map((worker) => worker.name)).toEqual(["Zoë Müller"]);
    // A new record of the old company takes any text now.
    const created = await api.post("/v1/workers", { name: NAMES[0] });
    expect(created.status).toBe(201);
  });

  checks(() => target);

  test("its tables are those of a database the server made, column for column", async () => {
    await migrateDatabase(database.url("erp_made"));
    const made = await columnsOf("erp_made");
    expect(made.length).toBeGreaterThan(100);
    expect(await columnsOf("erp_legacy")).toEqual(made);
    expect(await columnsOf("erp_fresh")).toEqual(made);
  });
});

describe("settings a session cannot fix", () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await database.query(
      "SET GLOBAL max_allowed_packet = 4194304, GLOBAL read_only = OFF, GLOBAL innodb_default_row_format = 'dynamic'",
    );
  });

  test("each is one line at start, naming the setting and what to set", async () => {
    await database.query(
      "SET GLOBAL max_allowed_packet = 1048576, GLOBAL read_only = ON, GLOBAL innodb_default_row_format = 'compact'",
    );
    server = await startServer({
      env: { DATABASE_URL: database.url("erp_made"), LOG_LEVEL: "warn" },
    });
    const lines = server
      .logs()
      .split("\n")
      .filter((line) => line.includes('"database setting:'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.map((line) =>
        Object.keys(line).find((key) => !["time", "level", "message", "set"].includes(key)),
      ),
    ).toEqual(["max_allowed_packet", "read_only", "innodb_default_row_format"]);
    expect(lines.every((line) => line.level === "warn")).toBe(true);
    expect(lines[0]).toMatchObject({
      max_allowed_packet: 1048576,
      set: "max_allowed_packet = 16M (at least 4M)",
    });
  });
});
