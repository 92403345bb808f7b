// `bun run admin`: companies and tokens as README.md names them, used against a live server.
import { describe, expect, test } from "bun:test";
import { eventually } from "@erp/testing/api";
import { ROOT, testDatabaseUrl } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

const suite = useServer();

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, "run", "admin", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: testDatabaseUrl() },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

const lastJsonLine = (text: string): any => JSON.parse(text.trim().split("\n").at(-1)!);

describe("bun run admin", () => {
  test("company create prints {company_id, token}; the token works with the add-ons and limits given", async () => {
    const result = await admin(
      "company",
      "create",
      "--name",
      "Admin Co",
      "--plan",
      "free",
      "--addons",
      "api,equipment",
      "--max-projects",
      "1",
      "--json",
    );
    expect(result.code).toBe(0);
    const created = lastJsonLine(result.stdout);
    expect(Number.isInteger(created.company_id)).toBe(true);
    expect(created.token).toMatch(/^erp_/);
    const api = suite.api.as(created.token);
    expect((await api.get("/v1/equipment")).status).toBe(200);
    expect((await api.get("/v1/estimates")).body.code).toBe("feature_off");
    expect((await api.post("/v1/projects", { name: "One" })).status).toBe(201);
    expect((await api.post("/v1/projects", { name: "Two" })).body.code).toBe("quota_exceeded");
  });

  test("--addons defaults to api", async () => {
    const created = lastJsonLine(
      (await admin("company", "create", "--name", "Plain", "--plan", "pro", "--json")).stdout,
    );
    const api = suite.api.as(created.token);
    expect((await api.get("/v1/projects")).status).toBe(200);
    expect((await api.get("/v1/subcontractors")).body.code).toBe("feature_off");
  });

  test("token create issues a second token; token revoke makes it 401", async () => {
    const { company_id } = lastJsonLine(
      (await admin("company", "create", "--name", "Tokens", "--plan", "pro", "--json")).stdout,
    );
    const issued = lastJsonLine(
      (await admin("token", "create", "--company", String(company_id), "--json")).stdout,
    );
    expect(issued.token).toMatch(/^erp_/);
    expect((await suite.api.as(issued.token).get("/v1/clients")).status).toBe(200);
    expect((await admin("token", "revoke", "--token", issued.token)).code).toBe(0);
    // Every server hears of a revocation within 1 s (docs/tokens.md).
    expect(
      (await eventually(() => suite.api.as(issued.token).get("/v1/clients"), 401)).status,
    ).toBe(401);
  });

  test("token create takes a name, scopes and an expiry", async () => {
    const { company_id } = lastJsonLine(
      (await admin("company", "create", "--name", "Scoped", "--plan", "pro", "--json")).stdout,
    );
    const issued = lastJsonLine(
      (
        await admin(
          "token",
          "create",
          "--company",
          String(company_id),
          "--scopes",
          "workers:write,events:read",
          "--expires-in-days",
          "30",
          "--name",
          "import-bot",
          "--json",
        )
      ).stdout,
    );
    expect(issued).toMatchObject({ name: "import-bot", scopes: ["workers:write", "events:read"] });
    expect((Date.parse(issued.expires_at) - Date.parse(issued.created_at)) / 86_400_000).toBe(30);
    const api = suite.api.as(issued.token);
    expect((await api.get("/v1/workers")).status).toBe(200);
    expect((await api.get("/v1/projects")).status).toBe(403);
    const bad = await admin("token", "create", "--company", String(company_id), "--scopes", "root");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("root");
  });

  test("a bad plan or add-on is a usage error that creates nothing", async () => {
    const badPlan = await admin("company", "create", "--name", "X", "--plan", "gold", "--json");
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain("gold");
    const badAddon = await admin(
      "company",
      "create",
      "--name",
      "X",
      "--plan",
      "free",
      "--addons",
      "api,rockets",
      "--json",
    );
    expect(badAddon.code).toBe(2);
    expect(badAddon.stderr).toContain("rockets");
  });
});
