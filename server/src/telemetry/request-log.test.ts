// Request lines: valid JSON with every field, written together, the client's method escaped.
import { afterEach, expect, test } from "bun:test";
import { RequestLog, type RequestFields } from "./request-log.ts";

const written: string[] = [];
const realWrite = process.stdout.write;
const capture = () => {
  written.length = 0;
  process.stdout.write = ((text: string) => {
    written.push(text);
    return true;
  }) as typeof process.stdout.write;
};
afterEach(() => {
  process.stdout.write = realWrite;
});

const fields = (over: Partial<RequestFields> = {}): RequestFields => ({
  request_id: "req-1",
  trace_id: "0af7651916cd43dd8448eb211c80319c",
  company_id: 7,
  method: "GET",
  route: "/v1/workers/{id}",
  status: 200,
  duration_ms: 1.25,
  db_ms: 0.5,
  ...over,
});

test("each request is one JSON line with its fields, the time and the level", () => {
  capture();
  const log = new RequestLog("json");
  const before = Date.now();
  log.write(fields());
  log.write(fields({ company_id: null, status: 503, method: 'PO"ST\\', route: "unmatched" }));
  log.write(fields({ status: 422 }));
  log.flush();
  expect(written).toHaveLength(1);
  const lines = written[0]!
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines[0]).toEqual({ ...fields(), time: lines[0].time, level: "info" });
  expect(lines[1]).toMatchObject({ company_id: null, method: 'PO"ST\\', level: "error" });
  expect(lines[2].level).toBe("warn");
  for (const line of lines) {
    expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(line.time) - before)).toBeLessThan(1000);
  }
});

test("lines wait to be written together, at most about 50 ms", async () => {
  capture();
  const log = new RequestLog("json");
  log.write(fields());
  log.write(fields());
  expect(written).toHaveLength(0);
  await Bun.sleep(120);
  expect(written).toHaveLength(1);
  expect(written[0]!.trimEnd().split("\n")).toHaveLength(2);
});

test("pretty lines for people; off writes nothing", () => {
  capture();
  const pretty = new RequestLog("pretty");
  pretty.write(fields());
  pretty.flush();
  expect(written[0]).toMatch(
    / 200 GET \/v1\/workers\/\{id\} 1\.25 ms \(db 0\.5 ms\) company 7 req-1\n$/,
  );
  const off = new RequestLog("off");
  off.write(fields());
  off.flush();
  expect(written).toHaveLength(1);
});
