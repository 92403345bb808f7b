// The baseline of `bun run bench`: the least a server can do for the same requests. Bun.serve and
// mysql2 with hand-written SQL, the same JSON envelopes, tokens held in memory (as our server's
// cache does), no validation beyond what the SQL needs, no metering, no events; a batch of workers
// is one multi-row INSERT.
// Env: DATABASE_URL, PORT (0 picks one; prints "listening on http://127.0.0.1:<port>").
import { createHash } from "node:crypto";
import mysql, { type ResultSetHeader, type RowDataPacket } from "mysql2/promise";

const pool = mysql.createPool({
  uri: process.env.DATABASE_URL!,
  connectionLimit: 10,
  dateStrings: false,
  timezone: "Z",
  trace: false,
} as mysql.PoolOptions);
const COLUMNS =
  "id, name, email, phone, trade_id, hourly_rate, hired_on, external_id, status, created_at, updated_at";
const WRITABLE = [
  "name",
  "email",
  "phone",
  "trade_id",
  "hourly_rate",
  "hired_on",
  "status",
] as const;

const companies = new Map<string, number>();
const [tokens] = await pool.query<RowDataPacket[]>(
  "SELECT token_hash, company_id FROM api_tokens WHERE revoked_at IS NULL",
);
for (const row of tokens) companies.set(String(row.token_hash), Number(row.company_id));

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
const problem = (status: number, code: string): Response =>
  json(status, { type: "about:blank", status, code });
const etagOf = (body: string): string =>
  `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

function present(row: RowDataPacket): Record<string, unknown> {
  return {
    ...row,
    id: Number(row.id),
    hourly_rate: row.hourly_rate === null ? null : String(row.hourly_rate),
    created_at: (row.created_at as Date).toISOString(),
    updated_at: (row.updated_at as Date).toISOString(),
  };
}

async function getOne(company: number, id: number): Promise<Response> {
  const [rows] = await pool.execute<RowDataPacket[]>(
    `SELECT ${COLUMNS} FROM workers WHERE company_id = ? AND id = ? AND deleted_at IS NULL`,
    [company, id],
  );
  if (!rows[0]) return problem(404, "not_found");
  const body = JSON.stringify({ data: present(rows[0]) });
  return new Response(body, {
    headers: { "content-type": "application/json", etag: etagOf(body) },
  });
}

async function list(company: number, url: URL): Promise<Response> {
  const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 50));
  const offset = Number(url.searchParams.get("offset") ?? 0);
  const [[rows], [count]] = await Promise.all([
    pool.query<RowDataPacket[]>(
      `SELECT ${COLUMNS} FROM workers WHERE company_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?`,
      [company, limit, offset],
    ),
    pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS total FROM workers WHERE company_id = ? AND deleted_at IS NULL",
      [company],
    ),
  ]);
  return json(200, {
    data: rows.map(present),
    meta: { total: Number(count[0]!.total), limit, offset },
  });
}

const insertSql =
  "INSERT INTO workers (company_id, name, email, status, created_at, updated_at) VALUES (?, ?, ?, 'ACTIVE', ?, ?)";

async function create(company: number, request: Request): Promise<Response> {
  const body = (await request.json()) as { name: string; email?: string };
  const key = request.headers.get("idempotency-key");
  const now = new Date();
  if (key === null) {
    const [result] = await pool.execute<ResultSetHeader>(insertSql, [
      company,
      body.name,
      body.email ?? null,
      now,
      now,
    ]);
    return json(
      201,
      { data: { id: result.insertId, created: true, dry_run: false } },
      { location: `/v1/workers/${result.insertId}` },
    );
  }
  const [stored] = await pool.execute<RowDataPacket[]>(
    "SELECT status_code, response_body FROM idempotency_keys WHERE company_id = ? AND idempotency_key = ?",
    [company, key],
  );
  if (stored[0])
    return new Response(String(stored[0].response_body), {
      status: Number(stored[0].status_code),
      headers: { "content-type": "application/json", "idempotent-replayed": "true" },
    });
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    const [result] = await connection.execute<ResultSetHeader>(insertSql, [
      company,
      body.name,
      body.email ?? null,
      now,
      now,
    ]);
    const answer = JSON.stringify({ data: { id: result.insertId, created: true, dry_run: false } });
    await connection.execute(
      "INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status_code, " +
        "response_headers, response_body, created_at) VALUES (?, ?, ?, 201, '{}', ?, ?)",
      [
        company,
        key,
        createHash("sha256").update(JSON.stringify(body)).digest("hex"),
        answer,
        now,
      ] as (string | number | Date)[],
    );
    await connection.commit();
    return new Response(answer, { status: 201, headers: { "content-type": "application/json" } });
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    connection.release();
  }
}

async function patch(company: number, id: number, request: Request): Promise<Response> {
  const body = (await request.json()) as Record<string, unknown>;
  const fields = WRITABLE.filter((field) => field in body);
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    const [rows] = await connection.execute<RowDataPacket[]>(
      `SELECT ${COLUMNS} FROM workers WHERE company_id = ? AND id = ? AND deleted_at IS NULL FOR UPDATE`,
      [company, id],
    );
    if (!rows[0]) {
      await connection.rollback();
      return problem(404, "not_found");
    }
    const current = present(rows[0]);
    const ifMatch = request.headers.get("if-match");
    if (ifMatch !== null && ifMatch !== etagOf(JSON.stringify({ data: current }))) {
      await connection.rollback();
      return problem(412, "precondition_failed");
    }
    const now = new Date();
    await connection.execute(
      `UPDATE workers SET ${fields.map((f) => `${f} = ?`).join(", ")}, updated_at = ? WHERE company_id = ? AND id = ?`,
      [...fields.map((f) => body[f] as string), now, company, id],
    );
    await connection.commit();
    const record = {
      ...current,
      ...Object.fromEntries(fields.map((f) => [f, body[f]])),
      updated_at: now.toISOString(),
    };
    return json(
      200,
      { data: { id, updated: true, dry_run: false, changes: {}, record } },
      { etag: etagOf(JSON.stringify({ data: record })) },
    );
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    connection.release();
  }
}

/** A batch as one multi-row INSERT, one statement however many rows: the least a bulk load can cost. */
async function batch(company: number, request: Request): Promise<Response> {
  const { items } = (await request.json()) as {
    items: { name: string; email?: string; phone?: string }[];
  };
  const now = new Date();
  const [result] = await pool.query<ResultSetHeader>(
    "INSERT INTO workers (company_id, name, email, phone, status, created_at, updated_at) VALUES ?",
    [
      items.map((item) => [
        company,
        item.name,
        item.email ?? null,
        item.phone ?? null,
        "ACTIVE",
        now,
        now,
      ]),
    ],
  );
  return json(200, { data: { created: result.affectedRows } });
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const url = new URL(request.url);
    const token = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    const company = companies.get(createHash("sha256").update(token).digest("hex"));
    if (company === undefined) return problem(401, "unauthorized");
    const [, , collection, id] = url.pathname.split("/");
    if (collection !== "workers") return problem(404, "route_not_found");
    if (id === undefined && request.method === "GET") return list(company, url);
    if (id === undefined && request.method === "POST") return create(company, request);
    if (id === "batch" && request.method === "POST") return batch(company, request);
    if (id !== undefined && request.method === "GET") return getOne(company, Number(id));
    if (id !== undefined && request.method === "PATCH") return patch(company, Number(id), request);
    return problem(405, "method_not_allowed");
  },
});
console.log(`listening on http://127.0.0.1:${server.port}`);
