// `erp` resource commands, output formats, exit codes and login, run as a real process against a live server.
import { beforeAll, describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erp, erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let cli: ReturnType<typeof erpFor>;
let token: string;

beforeAll(async () => {
  ({ token } = await newCompany());
  cli = erpFor(suite.server.baseUrl, token);
});

const json = (text: string): any => JSON.parse(text);

describe("erp <resource> create/get/list/update/delete", () => {
  test("key=value arguments become a typed body: *_id integers, money as text, key= clears", async () => {
    const client = await cli([
      "clients",
      "create",
      "name=Northwind Ltd",
      "tax_id=NW-1",
      "--output",
      "json",
    ]);
    expect(client.code).toBe(0);
    const clientId = json(client.stdout).id;
    expect(json(client.stdout)).toEqual({ id: clientId, created: true, dry_run: false });

    const made = await cli([
      "projects",
      "create",
      "name=Harbour depot",
      `client_id=${clientId}`,
      "budget_amount=1250.5",
      "code=HD-1",
      "-o",
      "json",
    ]);
    expect(made.code).toBe(0);
    const id = json(made.stdout).id;

    const got = await cli(["projects", "get", String(id), "-o", "json"]);
    expect(got.code).toBe(0);
    expect(json(got.stdout)).toMatchObject({
      id,
      name: "Harbour depot",
      client_id: clientId,
      budget_amount: "1250.50",
      code: "HD-1",
      status: "DRAFT",
    });

    const updated = await cli([
      "projects",
      "update",
      String(id),
      "status=ACTIVE",
      "code=",
      "-o",
      "json",
    ]);
    expect(updated.code).toBe(0);
    expect(json(updated.stdout).changes).toEqual({
      status: { from: "DRAFT", to: "ACTIVE" },
      code: { from: "HD-1", to: null },
    });
    expect(json(updated.stdout).record).toMatchObject({ status: "ACTIVE", code: null });

    const listed = await cli([
      "projects",
      "list",
      "--status",
      "active",
      "--client-id",
      String(clientId),
      "--fields",
      "name",
      "-o",
      "json",
    ]);
    expect(listed.code).toBe(0);
    expect(json(listed.stdout)).toEqual([{ id, name: "Harbour depot" }]);

    const dryDelete = await cli(["projects", "delete", String(id), "--dry-run", "-o", "json"]);
    expect(json(dryDelete.stdout)).toMatchObject({
      id,
      deleted: false,
      dry_run: true,
      mode: "soft",
    });
    // No terminal (a script): without --yes nothing is deleted, exit 2.
    const unconfirmed = await cli(["projects", "delete", String(id), "-o", "json"]);
    expect([unconfirmed.code, unconfirmed.stdout]).toEqual([2, ""]);
    expect(unconfirmed.stderr).toContain("pass --yes");
    expect((await cli(["projects", "get", String(id)])).code).toBe(0);
    const deleted = await cli(["projects", "delete", String(id), "--yes", "-o", "json"]);
    expect(deleted.code).toBe(0);
    expect(json(deleted.stdout)).toMatchObject({
      id,
      deleted: true,
      dry_run: false,
      would_delete: [{ resource: "projects", id }],
    });

    const gone = await cli(["projects", "get", String(id)]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toBe("");
    expect(gone.stderr).toContain("404 not_found");
  });

  test("--data, --file and --file - (stdin) give the body; --dry-run writes nothing", async () => {
    const dir = tempDir();
    const file = path.join(dir, "worker.json");
    writeFileSync(file, JSON.stringify({ name: "From file", hourly_rate: 30 }));
    const fromData = await cli([
      "workers",
      "create",
      "--data",
      '{"name":"From data","hourly_rate":"42.10"}',
      "-o",
      "json",
    ]);
    const fromFile = await cli(["workers", "create", "--file", file, "-o", "json"]);
    const fromStdin = await cli(["workers", "create", "--file", "-", "-o", "json"], {
      stdin: '{"name":"From stdin"}',
    });
    for (const result of [fromData, fromFile, fromStdin]) expect(result.code).toBe(0);

    const dry = await cli(["workers", "create", "name=Not written", "--dry-run", "-o", "json"]);
    expect(json(dry.stdout)).toEqual({ id: null, created: false, dry_run: true });

    const all = json(
      (await cli(["workers", "list", "--fields", "name,hourly_rate", "-o", "json"])).stdout,
    );
    expect(all.map((w: any) => [w.name, w.hourly_rate])).toEqual([
      ["From data", "42.10"],
      ["From file", "30.00"],
      ["From stdin", null],
    ]);
  });

  test("--idempotency-key makes a repeated create a replay", async () => {
    const args = [
      "subcontractors",
      "create",
      "name=Sparks & Co",
      "--idempotency-key",
      "cli-test-sparks",
      "-o",
      "json",
    ];
    const first = json((await cli(args)).stdout);
    const second = json((await cli(args)).stdout);
    expect(second.id).toBe(first.id);
    expect(
      json((await cli(["subcontractors", "list", "--q", "sparks", "-o", "json"])).stdout),
    ).toHaveLength(1);
  });

  test("--output ndjson, csv and table", async () => {
    await cli(["equipment", "create", "name=Crane, 40t", "serial_number=CR-1", "daily_rate=900"]);
    await cli(["equipment", "create", 'name=Say "hi"', "serial_number=CR-2"]);
    const lines = ndjson((await cli(["equipment", "list", "-o", "ndjson"])).stdout);
    expect(lines.map((e) => e.name)).toEqual(["Crane, 40t", 'Say "hi"']);

    const csv = (
      await cli(["equipment", "list", "--fields", "name,daily_rate", "-o", "csv"])
    ).stdout.split("\r\n");
    expect(csv.slice(0, 3)).toEqual([
      "id,name,daily_rate",
      `${lines[0].id},"Crane, 40t",900.00`,
      `${lines[1].id},"Say ""hi""",`,
    ]);

    const table = (await cli(["equipment", "get", String(lines[0].id), "-o", "table"])).stdout;
    expect(table).toMatch(/^FIELD\s+VALUE\n/);
    expect(table).toMatch(/\nserial_number\s+CR-1\n/);
    // Piped (not a terminal) with no --output: JSON.
    expect(json((await cli(["equipment", "get", String(lines[0].id)])).stdout).serial_number).toBe(
      "CR-1",
    );
  });

  test("list prints one page and says on stderr where the next one starts; --all follows every page", async () => {
    for (const name of ["E1", "E2", "E3"]) await cli(["estimates", "create", `title=${name}`]);
    const page = await cli(["estimates", "list", "--limit", "2", "--offset", "1", "-o", "json"]);
    expect(json(page.stdout).map((e: any) => e.title)).toEqual(["E2", "E3"]);
    const first = await cli(["estimates", "list", "--limit", "2", "-o", "json"]);
    expect(first.stderr).toContain("--offset 2");
    const all = await cli(["estimates", "list", "--all", "--limit", "1", "-o", "ndjson"]);
    expect(ndjson(all.stdout).map((e) => e.title)).toEqual(["E1", "E2", "E3"]);
  });

  test("--sort, range flags and --expand on list and export (a sorted export pages on cursors)", async () => {
    const client = json(
      (await cli(["clients", "create", "name=Sorted Client", "-o", "json"])).stdout,
    ).id;
    for (const [name, amount] of [
      ["S-B", "10"],
      ["S-A", "30"],
      ["S-C", "20"],
    ])
      await cli([
        "estimates",
        "create",
        `title=${name}`,
        `amount=${amount}`,
        `client_id=${client}`,
      ]);
    const sorted = await cli([
      "estimates",
      "list",
      "--sort",
      "-title",
      "--amount-gte",
      "15",
      "-o",
      "json",
    ]);
    expect(sorted.code, sorted.stderr).toBe(0);
    expect(json(sorted.stdout).map((e: any) => e.title)).toEqual(["S-C", "S-A"]);
    const exported = await cli([
      "export",
      "estimates",
      "--sort",
      "amount",
      "--amount-gt",
      "5",
      "--amount-lt",
      "100",
      "--expand",
      "client",
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = ndjson(exported.stdout);
    expect(rows.map((e) => e.title)).toEqual(["S-B", "S-C", "S-A"]);
    expect(rows.map((e: any) => e.client.name)).toEqual([
      "Sorted Client",
      "Sorted Client",
      "Sorted Client",
    ]);
    // A bound the API cannot read is its 400, naming the parameter; a field without ranges has no flags.
    const bad = await cli(["estimates", "list", "--valid-until-lt", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("valid_until");
    expect((await cli(["estimates", "list", "--title-gte", "A"])).code).toBe(2);
  });
});

describe("exit codes", () => {
  test("usage errors exit 2 before any request, with the reason on stderr", async () => {
    const cases: [string[], string][] = [
      [["projects", "lst"], "unknown command"],
      [["nothing"], "unknown command"],
      [["projects", "list", "--bogus"], "unknown option"],
      [["clients", "list", "--client-id", "3"], "unknown option"],
      [["projects", "get", "abc"], "positive integer"],
      [["projects", "list", "--limit", "0"], "at least 1"],
      [["projects", "list", "--all", "--offset", "3"], "--offset is for one page"],
      [["projects", "list", "-o", "xml"], "xml"],
      [["projects", "create"], "key=value"],
      [["projects", "create", "name"], "key=value"],
      [["projects", "create", "name=a", "--data", "{}"], "only one"],
      [["projects", "create", "--data", "[1]"], "JSON object"],
      [["projects", "create", "--data", "{nope"], "not valid JSON"],
      [["import", "rockets", "x.csv"], "rockets"],
      [["import", "projects", "/does/not/exist.csv"], "cannot read"],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe("");
    }
    const noToken = await erp(["projects", "list"], {
      env: { ERP_BASE_URL: suite.server.baseUrl },
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("erp login");
  });

  test("API errors exit 1 with the problem's detail, every failing field and the request id on stderr", async () => {
    const invalid = await cli([
      "projects",
      "create",
      "name=x",
      "budget_amount=-1",
      "end_date=2026-02-30",
      "-o",
      "json",
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toBe("");
    expect(invalid.stderr).toContain("422 validation_failed");
    expect(invalid.stderr).toContain("- budget_amount:");
    expect(invalid.stderr).toContain("- end_date:");
    expect(invalid.stderr).toMatch(/request id: \S+/);

    const id = json(
      (await cli(["projects", "create", "name=Locked", "status=ACTIVE", "-o", "json"])).stdout,
    ).id;
    const locked = await cli(["projects", "update", String(id), "billing_mode=COST_PLUS"]);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain("409 billing_mode_locked");
    expect(locked.stderr).toContain("locked");

    const badToken = await erp(["projects", "list"], {
      env: { ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: "erp_wrong" },
    });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain("401 unauthorized");

    const unreachable = await erp(["projects", "list"], {
      env: { ERP_BASE_URL: "http://127.0.0.1:9", ERP_TOKEN: token },
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.toLowerCase()).toContain("connect");
  });

  test("a company without the add-on gets 402 feature_off, exit 1", async () => {
    const plain = await newCompany({ addons: ["api"] });
    const result = await erpFor(suite.server.baseUrl, plain.token)(["equipment", "list"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("402 feature_off");
  });
});

describe("erp login and erp usage", () => {
  test("login checks the token, then writes a 0600 file that later commands use; flags still win", async () => {
    const config = path.join(tempDir(), "erp", "config.json");
    const env = { ERP_CONFIG: config };
    const refused = await erp(["login"], { env, stdin: `${suite.server.baseUrl}\nerp_wrong\n` });
    expect(refused.code).toBe(1);
    expect(() => statSync(config)).toThrow();

    const login = await erp(["login"], { env, stdin: `${suite.server.baseUrl}\n${token}\n` });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(config);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(login.stderr).not.toContain(token);

    const listed = await erp(["clients", "list", "-o", "json"], { env });
    expect(listed.code).toBe(0);
    expect(json(listed.stdout).map((c: any) => c.name)).toContain("Northwind Ltd");

    const overridden = await erp(["clients", "list", "--token", "erp_wrong"], { env });
    expect(overridden.code).toBe(1);

    const other = await newCompany();
    const byFlags = await erp(
      ["login", "--base-url", suite.server.baseUrl, "--token", other.token],
      { env },
    );
    expect(byFlags.code).toBe(0);
    expect(json((await erp(["clients", "list", "-o", "json"], { env })).stdout)).toEqual([]);
  });

  test("usage prints this month's counters and quotas", async () => {
    const result = await cli(["usage", "-o", "json"]);
    expect(result.code).toBe(0);
    const usage = json(result.stdout);
    expect(usage.period).toMatch(/^\d{4}-\d{2}$/);
    expect(usage.quotas.projects).toHaveProperty("used");
  });
});
