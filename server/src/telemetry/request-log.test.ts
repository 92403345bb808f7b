// Request lines: valid JSON with every field, written together, the client's method escaped, the
// bytes handed to stdout left alone until it took them.
import { afterEach, expect, test } from "bun:test";
import { RequestLog, type RequestFields } from "./request-log.ts";

const written: string[] = [];
const realWrite = process.stdout.write;
const capture = () => {
  written.length = 0;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
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

test("bytes handed to stdout are not written over before stdout took them", () => {
  const handed: { chunk: Uint8Array; taken: () => void }[] = [];
  process.stdout.write = ((chunk: Uint8Array, taken: () => void) => {
    handed.push({ chunk, taken });
    return true;
  }) as typeof process.stdout.write;
  const log = new RequestLog("json");
  const textOf = (at: number) => Buffer.from(handed[at]!.chunk).toString();
  for (const id of ["first", "second"]) {
    log.write(fields({ request_id: id }));
    log.flush();
  }
  handed[0]!.taken();
  for (const id of ["third", "fourth"]) {
    log.write(fields({ request_id: id }));
    log.flush();
  }
  expect([1, 2, 3].map((at) => JSON.parse(textOf(at)).request_id)).toEqual([
    "second",
    "third",
    "fourth",
  ]);
  // Only the buffer stdout took was used again.
  expect(handed[3]!.chunk.buffer).toBe(handed[0]!.chunk.buffer);
  expect(new Set([1, 2, 3].map((at) => handed[at]!.chunk.buffer)).size).toBe(3);
});

test("a line longer than a buffer is written whole, after the lines before it", () => {
  capture();
  const log = new RequestLog("json");
  log.write(fields());
  log.write(fields({ method: "X".repeat(200_000) }));
  log.flush();
  expect(written).toHaveLength(2);
  expect(JSON.parse(written[0]!).request_id).toBe("req-1");
  expect(JSON.parse(written[1]!).method).toHaveLength(200_000);
});
