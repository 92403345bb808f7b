// A token's secret is kept only as its hash (docs/tokens.md): after token creates through the
// API, the SDK and the CLI (all with an Idempotency-Key), a dump of the database holds none of
// their secrets; a replay answers the original body with `token: null`, and only to a token that
// could have made it; the migration rewrites the answers stored before with `token: null`. A
// token never outlives the token that made it, and revokes only itself or tokens whose scopes it
// holds.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { ErpClient } from "../sdk/mod.ts";
import type { Api } from "@erp/testing/api";
import { erpFor } from "@erp/testing/cli";
import { newCompany, newToken, testDb } from "@erp/testing/company";
import { ensureDebianTool } from "@erp/testing/debian-tools";
import { ROOT, testDatabaseUrl } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();

/** An Api of the company with a token holding `scopes`, expiring in `days` (default never). */
async function tokenOf(companyId: number, scopes: string[], days?: number): Promise<Api> {
  return suite.api.as(
    await newToken(companyId, {
      name: scopes.join(" "),
      scopes,
      ...(days === undefined ? {} : { expiresInDays: days }),
    }),
  );
}

/** The whole test database as mysqldump (MariaDB's mariadb-dump) writes it. */
function dumpDatabase(): string {
  const tool = ensureDebianTool("mariadb-dump", "mariadb-client");
  const binary = "path" in tool ? tool.path : Bun.which("mysqldump");
  if (!binary) throw new Error("missing" in tool ? tool.missing : "no mysqldump");
  const url = new URL(testDatabaseUrl());
  const dumped = Bun.spawnSync(
    [
      binary,
      `--host=${url.hostname}`,
      `--port=${url.port || "3306"}`,
      `--user=${decodeURIComponent(url.username)}`,
      ...(url.password ? [`--password=${decodeURIComponent(url.password)}`] : []),
      "--single-transaction",
      "--skip-extended-insert",
      url.pathname.slice(1),
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (dumped.exitCode !== 0) throw new Error(`dump failed: ${dumped.stderr.toString()}`);
  return dumped.stdout.toString();
}

describe("token secrets", () => {
  test("after creates through the API, the SDK and the CLI, a dump of the database holds no secret", async () => {
    const { companyId, token } = await newCompany();
    const api = suite.api.as(token);
    const key = `token-${crypto.randomUUID()}`;
    const byApi = await api.post(
      "/v1/tokens",
      { name: "by the API", scopes: ["workers:read"] },
      { headers: { "idempotency-key": key } },
    );
    expect(byApi.status).toBe(201);
    const bySdk = await new ErpClient({ baseUrl: suite.server.baseUrl, token }).tokens.create({
      name: "by the SDK",
      scopes: ["clients:write"],
      expires_in_days: 30,
    });
    const cli = await erpFor(
      suite.server.baseUrl,
      token,
    )([
      "tokens",
      "create",
      "--name",
      "by the CLI",
      "--scopes",
      "events:read,workers:read",
      "-o",
      "json",
    ]);
    expect(cli.code).toBe(0);
    const byCli = JSON.parse(cli.stdout);
    const secrets = [byApi.body.data.token, bySdk.token, byCli.token, token] as string[];
    for (const secret of secrets) expect(secret).toMatch(/^erp_[A-Za-z0-9_-]{43}$/);
    // Each of them works: they are real secrets, not placeholders.
    for (const secret of secrets.slice(0, 3))
      expect((await suite.api.as(secret).get("/v1/tokens")).status).toBe(200);

    const [stored] = await testDb().pool.query<RowDataPacket[]>(
      "SELECT response_body FROM idempotency_keys WHERE company_id = ?",
      [companyId],
    );
    // The SDK and the CLI send a key with every create, as the API call did.
    expect(stored.length).toBe(3);
    for (const row of stored)
      expect(JSON.parse(row.response_body as string).data).toMatchObject({ token: null });
    const dump = dumpDatabase();
    expect(dump).toContain("INSERT INTO `api_tokens`");
    expect(dump).toContain(key);
    for (const secret of secrets) expect(dump.includes(secret)).toBe(false);
    expect(dump).not.toMatch(/erp_[A-Za-z0-9_-]{43}/);
  });

  test("a replay answers the original body with token null to a token that could have made it, 403 to any other", async () => {
    const { companyId, token } = await newCompany();
    const maker = suite.api.as(token);
    const body = { name: "replayed", scopes: ["workers:write", "events:read"], expires_in_days: 7 };
    const headers = { "idempotency-key": `replay-${crypto.randomUUID()}` };
    const first = await maker.post("/v1/tokens", body, { headers });
    expect(first.status).toBe(201);
    expect(first.body.data.token).toStartWith("erp_");
    const again = await maker.post("/v1/tokens", body, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual({ data: { ...first.body.data, token: null } });
    // Another token holding every scope of the one made: the same answer.
    const peer = await tokenOf(companyId, ["tokens:write", "workers:write", "events:read"]);
    const byPeer = await peer.post("/v1/tokens", body, { headers });
    expect([byPeer.status, byPeer.body]).toEqual([201, again.body]);
    // One lacking a scope of it (workers:read is not workers:write): refused, as a create would be.
    const weaker = await tokenOf(companyId, ["tokens:write", "workers:read", "events:read"]);
    const byWeaker = await weaker.post("/v1/tokens", body, { headers });
    expect([byWeaker.status, byWeaker.body.code]).toEqual([403, "insufficient_scope"]);
    expect(byWeaker.headers.get("www-authenticate")).toContain('scope="workers:write"');
    expect(byWeaker.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.stringify(byWeaker.body)).not.toContain(first.body.data.token);
    // The token made once, and only once.
    const listed = (await maker.get("/v1/tokens")).body.data as { name: string }[];
    expect(listed.filter((one) => one.name === "replayed").length).toBe(1);
  });

  test("the migration rewrites the token creates' stored answers that held a secret, and nothing else", async () => {
    const { companyId } = await newCompany();
    const secret = `erp_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
    const tokenAnswer = JSON.stringify({
      data: {
        id: 77,
        name: "made before",
        scopes: ["*"],
        created_at: "2026-11-01T10:00:00.000Z",
        expires_at: null,
        token: secret,
      },
    });
    const recordAnswer = JSON.stringify({
      data: {
        id: 5,
        created: true,
        dry_run: false,
        record: { id: 5, name: `"token":"${secret}"` },
      },
    });
    const db = testDb().pool;
    for (const [key, answer] of [
      ["old-token-create", tokenAnswer],
      ["old-record-create", recordAnswer],
    ] as const)
      await db.query(
        `INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status_code,
          response_headers, response_body, created_at) VALUES (?, ?, 'f', 201, '{}', ?, NOW(3))`,
        [companyId, key, answer],
      );
    const migration = readFileSync(
      path.join(ROOT, "server/drizzle/0021_stored-answers-without-token-secrets.sql"),
      "utf8",
    );
    for (const statement of migration.split("--> statement-breakpoint")) {
      const text = statement
        .split("\n")
        .filter((line) => !line.startsWith("--"))
        .join("\n")
        .trim();
      if (text) await db.query(text);
    }
    const [rows] = await db.query<RowDataPacket[]>(
      "SELECT idempotency_key, response_body FROM idempotency_keys WHERE company_id = ? ORDER BY idempotency_key",
      [companyId],
    );
    expect(rows.map((row) => [row.idempotency_key.toString(), row.response_body])).toEqual([
      ["old-record-create", recordAnswer],
      ["old-token-create", tokenAnswer.replace(`"token":"${secret}"`, '"token":null')],
    ]);
  });
});

describe("a token never outlives the token that made it", () => {
  test("an expiring maker gives expires_in_days within its remaining life; longer, or none, is 422", async () => {
    const { companyId } = await newCompany();
    const maker = await tokenOf(companyId, ["tokens:write", "workers:read"], 3);
    const makerExpiry = (await maker.get("/v1/tokens")).body.data.find(
      (one: { current: boolean }) => one.current,
    ).expires_at as string;
    const within = await maker.post("/v1/tokens", {
      name: "within",
      scopes: ["workers:read"],
      expires_in_days: 2,
    });
    expect(within.status).toBe(201);
    expect(Date.parse(within.body.data.expires_at)).toBeLessThanOrEqual(Date.parse(makerExpiry));
    for (const days of [3, 4, 3650, undefined]) {
      const beyond = await maker.post("/v1/tokens", {
        name: "beyond",
        scopes: ["workers:read"],
        ...(days === undefined ? {} : { expires_in_days: days }),
      });
      expect([days, beyond.status, beyond.body.code]).toEqual([days, 422, "validation_failed"]);
      expect(beyond.body.errors.map((error: { field: string }) => error.field)).toEqual([
        "expires_in_days",
      ]);
      expect(beyond.body.errors[0].message).toContain("from 1 to 2");
    }
  });

  test("a maker expiring within a day makes no token; one that never expires makes any", async () => {
    const { companyId } = await newCompany();
    // Made with one day: less than one whole day is left of it by now.
    const soon = await tokenOf(companyId, ["tokens:write", "workers:read"], 1);
    const refused = await soon.post("/v1/tokens", {
      name: "too long",
      scopes: ["workers:read"],
      expires_in_days: 1,
    });
    expect([refused.status, refused.body.errors?.[0]?.field]).toEqual([422, "expires_in_days"]);
    expect(refused.body.errors[0].message).toContain("within a day");
    const forever = await tokenOf(companyId, ["tokens:write", "workers:read"]);
    for (const days of [3650, undefined])
      expect(
        (
          await forever.post("/v1/tokens", {
            name: "any",
            scopes: ["workers:read"],
            ...(days === undefined ? {} : { expires_in_days: days }),
          })
        ).status,
      ).toBe(201);
  });
});

describe("a token revokes only itself or tokens whose scopes it holds", () => {
  test("a small token cannot revoke a big one; it revokes one it could have made, and itself", async () => {
    const { companyId, token } = await newCompany();
    const big = suite.api.as(token);
    const small = await tokenOf(companyId, ["tokens:write", "workers:read"]);
    const ids = async () =>
      new Map(
        ((await big.get("/v1/tokens")).body.data as { id: number; scopes: string[] }[]).map(
          (one) => [one.scopes.join(" "), one.id],
        ),
      );
    await tokenOf(companyId, ["workers:read"]);
    await tokenOf(companyId, ["workers:write"]);
    const before = await ids();
    const refused = await small.delete(`/v1/tokens/${before.get("*")}`);
    expect([refused.status, refused.body.code]).toEqual([403, "insufficient_scope"]);
    const wider = await small.delete(`/v1/tokens/${before.get("workers:write")}`);
    expect([wider.status, wider.body.code]).toEqual([403, "insufficient_scope"]);
    expect(wider.headers.get("www-authenticate")).toContain('scope="workers:write"');
    expect((await big.get("/v1/tokens")).status).toBe(200);
    const allowed = await small.delete(`/v1/tokens/${before.get("workers:read")}`);
    expect(allowed.body.data).toEqual({ id: before.get("workers:read"), revoked: true });
    const itself = await small.delete(`/v1/tokens/${before.get("tokens:write workers:read")}`);
    expect(itself.status).toBe(200);
    // Another company's token is still 404, never 403.
    const stranger = (await newCompany()).token;
    const theirs = (await suite.api.as(stranger).get("/v1/tokens")).body.data[0].id;
    expect((await big.delete(`/v1/tokens/${theirs}`)).status).toBe(404);
  });
});
