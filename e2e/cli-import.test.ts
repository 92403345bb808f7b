// `erp import` and `erp export` as real processes: rejected rows, safe re-runs, stdin detection, retries, every page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
const dir = tempDir();
let cli: ReturnType<typeof erpFor>;
let clientId: number;

beforeAll(async () => {
  const { token } = await newCompany();
  cli = erpFor(suite.server.baseUrl, token);
  clientId = JSON.parse(
    (await cli(["clients", "create", "name=Northwind", "-o", "json"])).stdout,
  ).id;
});

const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const summaryOf = (stdout: string): any => JSON.parse(stdout);
const total = async (resource: string): Promise<number> => {
  const all = await cli([resource, "list", "--all", "--fields", "id", "-o", "ndjson"]);
  return ndjson(all.stdout).length;
};

describe("erp import", () => {
  const csv = () =>
    `${[
      "name,client_id,budget_amount,address,status,code",
      `"Harbour depot, phase 1",${clientId},1250.50,"1 Quay St\nDock 4",ACTIVE,HD-1`,
      `"The ""Big"" One",,99,,,`,
      `,${clientId},10,,,`,
      "Bad status,,,,OPEN,",
      "Ghost client,999999,,,,",
      "Too,few",
      `Last one,${clientId},0.5,,DRAFT,L-1`,
    ].join("\r\n")}\r\n`;

  test("a CSV with bad rows: good rows are created, each bad one is a report line, exit 3", async () => {
    const file = write("projects.csv", csv());
    const report = path.join(dir, "rejected.ndjson");
    const result = await cli(["import", "projects", file, "--report", report, "-o", "json"]);
    expect(result.code).toBe(3);
    expect(summaryOf(result.stdout)).toMatchObject({
      format: "csv",
      rows: 7,
      created: 3,
      already_imported: 0,
      rejected: 4,
      stopped: null,
      requests: 1,
    });
    expect(result.stderr).toContain(
      "3 created, 0 updated, 0 unchanged, 0 already imported, 4 rejected",
    );

    const lines = ndjson(readFileSync(report, "utf8")).sort((a, b) => a.row - b.row);
    expect(lines.map((l) => [l.row, l.line, l.status, l.code])).toEqual([
      [3, 5, 422, "validation_failed"],
      [4, 6, 422, "validation_failed"],
      [5, 7, 422, "validation_failed"],
      [6, 8, null, "invalid_row"],
    ]);
    expect(lines[0].errors.map((e: any) => e.field)).toEqual(["name"]);
    expect(lines[1].errors.map((e: any) => e.field)).toEqual(["status"]);
    expect(lines[2].errors.map((e: any) => e.field)).toEqual(["client_id"]);
    expect(lines[3].detail).toContain("has 2 cells where the header has");

    // One ordered batch: ids follow the file's order.
    const projects = ndjson((await cli(["projects", "list", "-o", "ndjson"])).stdout).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    const byId = [...projects].sort((a, b) => a.id - b.id).map((p) => p.name);
    expect(byId).toEqual(["Harbour depot, phase 1", 'The "Big" One', "Last one"]);
    expect(projects.map((p) => p.name)).toEqual([
      "Harbour depot, phase 1",
      "Last one",
      'The "Big" One',
    ]);
    expect(projects[0]).toMatchObject({
      client_id: clientId,
      budget_amount: "1250.50",
      address: "1 Quay St\nDock 4",
      status: "ACTIVE",
      code: "HD-1",
    });
    expect(projects[2]).toMatchObject({
      client_id: null,
      budget_amount: "99.00",
      address: null,
      status: "DRAFT",
    });
  });

  test("re-running the same file creates nothing twice: the journal skips the rows that went through", async () => {
    const before = await total("projects");
    const again = await cli([
      "import",
      "projects",
      write("projects-copy.csv", csv()),
      "-o",
      "json",
    ]);
    expect(again.code).toBe(3);
    expect(summaryOf(again.stdout)).toMatchObject({
      rows: 7,
      created: 0,
      already_imported: 3,
      rejected: 4,
    });
    expect(await total("projects")).toBe(before);
  });

  test("an interrupted import resumes: the rows that went through are skipped, the rest created", async () => {
    const rows = [
      "name,hourly_rate,hired_on",
      ...[1, 2, 3, 4, 5].map((n) => `Worker ${n},${n}0.5,2026-01-0${n}`),
    ];
    const partial = await cli([
      "import",
      "workers",
      write("partial.csv", rows.slice(0, 3).join("\n")),
      "-o",
      "json",
    ]);
    expect(summaryOf(partial.stdout)).toMatchObject({ created: 2 });
    const full = await cli([
      "import",
      "workers",
      write("full.csv", rows.join("\n")),
      "--concurrency",
      "2",
      "-o",
      "json",
    ]);
    expect(full.code).toBe(0);
    expect(summaryOf(full.stdout)).toMatchObject({
      rows: 5,
      created: 3,
      already_imported: 2,
      rejected: 0,
    });
    const workers = ndjson((await cli(["workers", "list", "-o", "ndjson"])).stdout).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    expect(workers.map((w) => [w.name, w.hourly_rate, w.hired_on])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [`Worker ${n}`, `${n}0.50`, `2026-01-0${n}`]),
    );
  });

  test("stdin: a first line starting with { is NDJSON, anything else CSV", async () => {
    const lines = [
      '{"name":"Stdin one","email":"one@example.com"}',
      "",
      '{"name":"Stdin two","tax_id":"S-2"}',
    ].join("\n");
    const fromNdjson = await cli(["import", "clients", "-", "-o", "json"], { stdin: lines });
    expect(fromNdjson.code).toBe(0);
    expect(summaryOf(fromNdjson.stdout)).toMatchObject({ format: "ndjson", rows: 2, created: 2 });
    const fromCsv = await cli(["import", "clients", "-", "-o", "json"], {
      stdin: "name,tax_id\nStdin three,S-3\n",
    });
    expect(summaryOf(fromCsv.stdout)).toMatchObject({ format: "csv", rows: 1, created: 1 });
    const found = ndjson((await cli(["clients", "list", "--q", "stdin", "-o", "ndjson"])).stdout);
    expect(found.map((c) => c.name).sort()).toEqual(["Stdin one", "Stdin three", "Stdin two"]);
  });

  test("--dry-run validates every row and creates nothing", async () => {
    const before = await total("estimates");
    const result = await cli(["import", "estimates", "-", "--dry-run", "-o", "json"], {
      stdin: "title,amount\nRoof,980\n,5\n",
    });
    expect(result.code).toBe(3);
    expect(summaryOf(result.stdout)).toMatchObject({
      dry_run: true,
      valid: 1,
      rejected: 1,
      created: 0,
    });
    expect(await total("estimates")).toBe(before);
  });

  test("unique values compare as the server compares them: a dry-run in batches predicts the import", async () => {
    const key = `cli-${crypto.randomUUID().slice(0, 8)}`;
    // A value differing only in trailing spaces is the same value; one differing in case is not.
    const stdin = [key, `${key} `, key.toUpperCase()]
      .map((externalId, row) => JSON.stringify({ name: `Unique ${row}`, external_id: externalId }))
      .join("\n");
    const run = async (...flags: string[]) =>
      summaryOf(
        (
          await cli(["import", "workers", "-", "--batch-size", "1", ...flags, "-o", "json"], {
            stdin,
          })
        ).stdout,
      );
    expect(await run("--dry-run")).toMatchObject({ dry_run: true, valid: 2, rejected: 1 });
    expect(await run()).toMatchObject({ dry_run: false, created: 2, rejected: 1 });
  });

  test("a refused token stops the import at once with exit 1", async () => {
    const bad = erpFor(suite.server.baseUrl, "erp_wrong");
    const result = await bad(["import", "clients", "-", "-o", "json"], {
      stdin: "name\nA\nB\nC\n",
    });
    expect(result.code).toBe(1);
    expect(summaryOf(result.stdout).stopped).toContain("401");
    expect(result.stderr).toContain("401 unauthorized");
  });
});

describe("erp import retries", () => {
  // A scripted API: the first answers to a batch are transient failures, so the retry loop runs without a real outage.
  const seen: { names: string[]; key: string | null }[] = [];
  const script: Response[] = [];
  let stub: ReturnType<typeof Bun.serve>;
  const problem = (status: number, code: string, headers: Record<string, string> = {}): Response =>
    Response.json(
      { type: "about:blank", title: code, status, detail: `scripted ${code}`, code },
      { status, headers: { "content-type": "application/problem+json", ...headers } },
    );

  beforeAll(() => {
    stub = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        // The company's custom fields, read before the import sends anything: none.
        if (new URL(request.url).pathname === "/v1/custom-fields")
          return Response.json({ data: [] });
        const body = (await request.json()) as { items: { name: string }[] };
        const names = body.items.map((item) => item.name);
        seen.push({ names, key: request.headers.get("idempotency-key") });
        const next = script.shift();
        if (next) return next;
        const results = names.map((name, index) =>
          name === "Bad"
            ? {
                index,
                status: 422,
                id: null,
                error: {
                  type: "about:blank",
                  title: "Unprocessable Content",
                  status: 422,
                  detail: "scripted",
                  code: "validation_failed",
                  request_id: "r",
                  errors: [{ field: "name", code: "invalid", message: "bad" }],
                },
              }
            : { index, status: 201, id: seen.length * 10 + index, action: "created" },
        );
        const created = results.filter((r) => r.status === 201).length;
        return Response.json({
          data: {
            dry_run: false,
            atomic: false,
            created,
            updated: 0,
            failed: names.length - created,
            results,
          },
        });
      },
    });
  });
  afterAll(() => void stub.stop(true));

  test(
    "429, 5xx and 409 idempotency_in_progress are retried with the same key; item refusals " +
      "are rejected rows",
    async () => {
      script.push(
        // No Retry-After: the first backoff, about half a second.
        new Response("oops", { status: 502 }),
        problem(503, "database_unavailable", { "retry-after": "0" }),
        problem(429, "rate_limited", { "retry-after": "0" }),
        problem(409, "idempotency_in_progress", { "retry-after": "0" }),
      );
      const stubCli = erpFor(`http://127.0.0.1:${stub.port}`, "erp_stub");
      const file = write("retry.csv", "name\nFlaky\nBad\nFine\n");
      const result = await stubCli(["import", "clients", file, "-o", "json"]);
      expect(result.code).toBe(3);
      expect(summaryOf(result.stdout)).toMatchObject({ created: 2, rejected: 1, requests: 5 });
      expect(seen).toHaveLength(5);
      expect(new Set(seen.map((s) => s.key)).size).toBe(1);
      expect(seen[0]!.names).toEqual(["Flaky", "Bad", "Fine"]);

      // From another path, the journal knows the two rows that went through: only the rejected one is sent again.
      seen.length = 0;
      const again = await stubCli([
        "import",
        "clients",
        write("elsewhere.csv", "name\nFlaky\nBad\nFine\n"),
        "-o",
        "json",
      ]);
      expect(summaryOf(again.stdout)).toMatchObject({ already_imported: 2, rejected: 1 });
      expect(seen.map((s) => s.names)).toEqual([["Bad"]]);
    },
  );
});

describe("erp export", () => {
  test("every page, streamed as NDJSON or CSV, with the list filters", async () => {
    const { token } = await newCompany();
    const own = erpFor(suite.server.baseUrl, token);
    const lines = Array.from({ length: 130 }, (_, i) =>
      JSON.stringify({ name: `Bulk ${i}`, tax_id: `B-${i}` }),
    ).join("\n");
    const imported = await own(["import", "clients", "-", "--concurrency", "8", "-o", "json"], {
      stdin: lines,
    });
    expect(summaryOf(imported.stdout)).toMatchObject({ created: 130 });

    const exported = await own(["export", "clients"]);
    expect(exported.code).toBe(0);
    const records = ndjson(exported.stdout);
    expect(records).toHaveLength(130);
    const ids = records.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(130);
    expect(exported.stderr).toContain("exported 130 clients");
    // Paged on after_id from 0, each page after the last id of the one before, never counting a
    // total it would not show.
    const requests = (await own(["export", "clients", "--verbose"])).stderr
      .split("\n")
      .filter((line) => line.startsWith("> GET"));
    const pages = requests.map((line) => new URL(line.split(" ")[2]!).searchParams);
    expect(pages.map((params) => params.get("after_id"))).toEqual(["0", String(ids[99])]);
    expect(pages.map((params) => [params.get("offset"), params.get("total")])).toEqual([
      [null, "false"],
      [null, "false"],
    ]);

    const csv = (
      await own(["export", "clients", "--format", "csv", "--fields", "name,tax_id"])
    ).stdout
      .trimEnd()
      .split("\r\n");
    expect(csv).toHaveLength(131);
    expect(csv[0]).toBe("id,name,tax_id");

    const filtered = ndjson((await own(["export", "clients", "--q", "Bulk 12"])).stdout);
    expect(filtered.map((r) => r.name).sort()).toEqual(
      ["Bulk 12", ...Array.from({ length: 10 }, (_, i) => `Bulk 12${i}`)].sort(),
    );
  });
});
