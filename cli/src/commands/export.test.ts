// `erp export` run in this process against a scripted API: every page in order, CSV cells that a
// spreadsheet would run as formulas written with a leading ', --bom only with CSV, a workbook never
// to a terminal, and an API error as exit 1.
import { describe, expect, test } from "bun:test";
import { type FakeApi, fakeCli } from "../fake-factory.ts";

const WORKERS = [
  { id: 1, name: "=1+1", phone: "+1 555 0100", hourly_rate: "-12.50" },
  { id: 2, name: "@SUM(6,7)", phone: null, hourly_rate: "40.00" },
  { id: 3, name: "Ann", phone: "-4+5", hourly_rate: "41.00" },
];

/** Two pages of workers on after_id: two records, then one. */
const pages: FakeApi = ({ path, query }) => {
  if (path !== "/v1/workers") return { status: 404, body: { code: "route_not_found" } };
  const after = Number(query.get("after_id") ?? 0);
  const data = WORKERS.filter((worker) => worker.id > after).slice(0, 2);
  const more = data.at(-1)!.id < WORKERS.length;
  return {
    body: { data, meta: { after_id: after, ...(more ? { next_after_id: data.at(-1)!.id } : {}) } },
  };
};

describe("erp export", () => {
  test("every page, as CSV whose formula-like cells start with '", async () => {
    const cli = fakeCli({ api: pages });
    expect(await cli.erp(["export", "workers", "--format", "csv"])).toBe(0);
    expect(cli.stdout()).toBe(
      "id,name,phone,hourly_rate\r\n" +
        "1,'=1+1,'+1 555 0100,-12.50\r\n" +
        '2,"\'@SUM(6,7)",,40.00\r\n' +
        "3,Ann,'-4+5,41.00\r\n",
    );
    expect(cli.stderr()).toBe("exported 3 workers\n");
    const paged = cli.seen.filter((request) => request.path === "/v1/workers");
    expect(paged.map((request) => request.query.get("after_id"))).toEqual(["0", "2"]);
  });

  test("NDJSON by default, the records as the API sends them", async () => {
    const cli = fakeCli({ api: pages });
    expect(await cli.erp(["export", "workers"])).toBe(0);
    expect(
      cli
        .stdout()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(WORKERS);
  });

  test("--bom without CSV, and a workbook to a terminal: exit 2 before any request", async () => {
    const bom = fakeCli({ api: pages });
    expect(await bom.erp(["export", "workers", "--bom"])).toBe(2);
    expect(bom.stderr()).toContain("--bom is for CSV");
    const terminal = fakeCli({ api: pages, stdoutTerminal: true });
    expect(await terminal.erp(["export", "workers", "--format", "xlsx"])).toBe(2);
    expect(terminal.stderr()).toContain("an .xlsx workbook is binary");
    expect([...bom.seen, ...terminal.seen]).toEqual([]);
  });

  test("an unknown format or flag: exit 2", async () => {
    const cli = fakeCli({ api: pages });
    expect(await cli.erp(["export", "workers", "--format", "pdf"])).toBe(2);
    expect(await cli.erp(["export", "workers", "--shoe-size", "44"])).toBe(2);
    expect(cli.seen).toEqual([]);
  });

  test("the API refuses: exit 1, its problem on stderr", async () => {
    const cli = fakeCli({
      api: () => ({
        status: 403,
        body: { code: "insufficient_scope", detail: "needs workers:read" },
      }),
    });
    expect(await cli.erp(["export", "workers"])).toBe(1);
    expect(cli.stderr()).toContain("403 insufficient_scope: needs workers:read");
  });
});
