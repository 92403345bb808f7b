// /v1/tokens (docs/tokens.md): a company lists, makes and revokes its own tokens; a token grants
// only what it holds and may always revoke itself; a revoked or expired token is refused by every
// server process within a second (401 invalid_token), with no read per request.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import type { Api, ApiResponse } from "@erp/testing/api";
import { newCompany, newToken, testDb } from "@erp/testing/company";
import { erpFor } from "@erp/testing/cli";
import { startServer, type RunningServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";
import { Api as Client } from "@erp/testing/api";

setDefaultTimeout(60_000);

const suite = useServer();

/** The first answer of `send` with `status`, and how long after `since` it came; gives up after 5 s. */
async function firstWith(
  send: () => Promise<ApiResponse>,
  status: number,
  since: number,
): Promise<{ response: ApiResponse; afterMs: number }> {
  for (;;) {
    const response = await send();
    const afterMs = Date.now() - since;
    if (response.status === status || afterMs > 5_000) return { response, afterMs };
    await Bun.sleep(20);
  }
}

async function withSecondServer(work: (other: Api) => Promise<void>): Promise<void> {
  const second: RunningServer = await startServer();
  try {
    await work(new Client(second.baseUrl));
  } finally {
    await second.stop();
  }
}

describe("/v1/tokens", () => {
  test("create names, scopes and expires a token; the secret is shown once and the list never shows one", async () => {
    const api = suite.api.as((await newCompany()).token);
    const made = await api.post("/v1/tokens", {
      name: "import-bot",
      scopes: ["workers:write", "events:read"],
      expires_in_days: 30,
    });
    expect(made.status).toBe(201);
    const data = made.body.data;
    expect(Object.keys(data).sort()).toEqual(
      ["created_at", "expires_at", "id", "name", "scopes", "token"].sort(),
    );
    expect(data.name).toBe("import-bot");
    expect(data.scopes).toEqual(["workers:write", "events:read"]);
    expect(data.token).toStartWith("erp_");
    const days = (Date.parse(data.expires_at) - Date.parse(data.created_at)) / 86_400_000;
    expect(days).toBe(30);
    const bot = suite.api.as(data.token);
    expect((await bot.post("/v1/workers", { name: "Imported" })).status).toBe(201);
    expect((await bot.get("/v1/workers")).status).toBe(200);
    const refused = await bot.get("/v1/projects");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="projects:read"',
    );
    const list = await bot.get("/v1/tokens");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(data.token);
    expect(list.text).not.toContain("token_hash");
    const mine = list.body.data.find((one: { id: number }) => one.id === data.id);
    expect(mine).toMatchObject({ name: "import-bot", current: true, expires_at: data.expires_at });
    expect(list.body.data.filter((one: { current: boolean }) => one.current)).toHaveLength(1);
  });

  test("bad input is 422 with every field named", async () => {
    const api = suite.api.as((await newCompany()).token);
    const refused = await api.post("/v1/tokens", {
      name: "",
      scopes: ["workers:delete"],
      expires_in_days: 0,
      admin: true,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(
      ["admin", "expires_in_days", "name", "scopes.0"].sort(),
    );
  });

  test("a token with workers:write cannot make one with projects:write, write, or *", async () => {
    const company = await newCompany();
    const writer = suite.api.as(
      await newToken(company.companyId, { scopes: ["workers:write", "tokens:write"] }),
    );
    for (const scopes of [
      ["projects:write"],
      ["write"],
      ["*"],
      ["workers:write", "projects:read"],
    ]) {
      const refused = await writer.post("/v1/tokens", { name: "escalate", scopes });
      expect({ scopes, status: refused.status, code: refused.body.code }).toEqual({
        scopes,
        status: 403,
        code: "insufficient_scope",
      });
    }
    const narrower = await writer.post("/v1/tokens", {
      name: "narrower",
      scopes: ["workers:read"],
    });
    expect(narrower.status).toBe(201);
    // tokens:write itself is a scope it holds, so it may pass it on.
    const list = await suite.api.as(company.token).get("/v1/tokens");
    expect(list.body.data.map((one: { name: string }) => one.name)).not.toContain("escalate");
  });

  test("a token without tokens:write may revoke only itself; another company's token is 404", async () => {
    const company = await newCompany();
    const owner = suite.api.as(company.token);
    const readerToken = await newToken(company.companyId, { scopes: ["read"] });
    const reader = suite.api.as(readerToken);
    const tokens = (await reader.get("/v1/tokens")).body.data as { id: number; current: boolean }[];
    const own = tokens.find((one) => one.current)!.id;
    const others = tokens.filter((one) => !one.current).map((one) => one.id);
    expect((await reader.delete(`/v1/tokens/${others[0]}`)).status).toBe(403);
    const stranger = suite.api.as((await newCompany()).token);
    expect((await stranger.delete(`/v1/tokens/${own}`)).status).toBe(404);
    expect(
      (await owner.delete(`/v1/tokens/${own}`, { headers: { "x-dry-run": "1" } })).status,
    ).toBe(200);
    expect((await reader.get("/v1/workers")).status).toBe(200);
    const revoked = await reader.delete(`/v1/tokens/${own}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({ id: own, revoked: true });
    const after = await reader.get("/v1/workers");
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(after.body.detail).toContain("revoked");
    expect((await owner.delete(`/v1/tokens/${own}`)).status).toBe(404);
  });

  test("a token revoked on one server is refused by another within 1 s", async () => {
    const company = await newCompany();
    const token = await newToken(company.companyId, { name: "revoke-me", scopes: ["read"] });
    await withSecondServer(async (other) => {
      const victim = other.as(token);
      // Remembered by the second server before the revocation.
      expect((await victim.get("/v1/workers")).status).toBe(200);
      const id = (
        (await victim.get("/v1/tokens")).body.data as { id: number; current: boolean }[]
      ).find((one) => one.current)!.id;
      expect((await suite.api.as(company.token).delete(`/v1/tokens/${id}`)).status).toBe(200);
      const { response, afterMs } = await firstWith(
        () => victim.get("/v1/workers"),
        401,
        Date.now(),
      );
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(afterMs).toBeLessThan(1_000);
    });
  });

  test(
    "a token past its expiry is refused by every server within 1 s; a used token shows the " +
      "minute it was last used",
    async () => {
      const company = await newCompany();
      const token = await newToken(company.companyId, { name: "short-lived", scopes: ["read"] });
      await withSecondServer(async (other) => {
        // Its expiry is set once both servers run: a second server slow to start (a loaded
        // machine) must not let it pass before the first requests.
        const expiresAt = Date.now() + 2_500;
        await testDb().pool.query(
          "UPDATE api_tokens SET expires_at = ? WHERE company_id = ? AND name = 'short-lived'",
          [new Date(expiresAt), company.companyId],
        );
        const apis = [suite.api.as(token), other.as(token)];
        for (const api of apis) expect((await api.get("/v1/workers")).status).toBe(200);
        await Bun.sleep(Math.max(0, expiresAt - Date.now()));
        for (const api of apis) {
          const { response, afterMs } = await firstWith(
            () => api.get("/v1/workers"),
            401,
            expiresAt,
          );
          expect(response.status).toBe(401);
          expect(response.body.detail).toContain("expired");
          expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
          expect(afterMs).toBeLessThan(1_000);
        }
      });
      const [rows] = await testDb().pool.query<RowDataPacket[]>(
        "SELECT last_used_at FROM api_tokens WHERE company_id = ? AND name = 'short-lived'",
        [company.companyId],
      );
      const lastUsed = rows[0]!.last_used_at as Date;
      expect(lastUsed.getTime() % 60_000).toBe(0);
      expect(Date.now() - lastUsed.getTime()).toBeLessThan(120_000);
    },
  );
});

describe("erp tokens and erp auth status", () => {
  test("create, list and revoke tokens; auth status shows the token's name, scopes and expiry", async () => {
    const company = await newCompany();
    const admin = erpFor(suite.server.baseUrl, company.token);
    const made = await admin([
      "tokens",
      "create",
      "--name",
      "import-bot",
      "--scopes",
      "workers:write,events:read",
      "--expires-in-days",
      "30",
      "-o",
      "json",
    ]);
    expect(made.code).toBe(0);
    const created = JSON.parse(made.stdout);
    expect(created).toMatchObject({ name: "import-bot", scopes: ["workers:write", "events:read"] });
    const bot = erpFor(suite.server.baseUrl, created.token);
    const status = JSON.parse((await bot(["auth", "status", "-o", "json"])).stdout);
    expect(status).toMatchObject({
      token_name: "import-bot",
      scopes: "workers:write events:read",
      expires_at: created.expires_at,
    });
    // The bot may not read the usage: auth status leaves it out rather than failing.
    expect(status.requests_this_month).toBeUndefined();
    const listed = JSON.parse((await admin(["tokens", "list", "-o", "json"])).stdout);
    expect(listed.map((one: { name: string }) => one.name)).toEqual(["initial", "import-bot"]);
    const refused = await bot(["projects", "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("projects:read");
    expect((await admin(["tokens", "revoke", String(created.id)])).code).toBe(0);
    expect((await bot(["workers", "list"])).code).toBe(1);
  });
});
