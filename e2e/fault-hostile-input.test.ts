// Fault suite: hostile input on every route. Generated requests (fast-check) over every operation of
// the served OpenAPI document, plus the known nasty cases: the server never answers 5xx, never shows
// a stack trace, a file path or SQL, always answers a documented error code (docs/errors.md), and
// its memory stays bounded.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { Api } from "@erp/testing/api";
import { newCompany, newToken } from "@erp/testing/company";
import { chunkedUpload, rawRequest } from "@erp/testing/raw-http";
import { SAMPLES } from "@erp/testing/samples";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(180_000);

/** Every code of docs/errors.md. */
const CODES = new Set([
  "malformed_json",
  "invalid_query",
  "invalid_idempotency_key",
  "unauthorized",
  "insufficient_scope",
  "feature_off",
  "quota_exceeded",
  "not_found",
  "route_not_found",
  "method_not_allowed",
  "invalid_transition",
  "billing_mode_locked",
  "estimate_not_draft",
  "rental_billed",
  "delete_blocked",
  "not_deleted",
  "unique_violation",
  "idempotency_key_reuse",
  "idempotency_in_progress",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "rate_limited",
  "request_timeout",
  "cursor_expired",
  "batch_failed",
]);
/** What an answer must never show: a stack frame, a source path, SQL or a driver's error. */
const REVEALING = new RegExp(
  [
    String.raw`\bat [^\s]+ \(`,
    String.raw`\.ts:\d+`,
    String.raw`\/work\/`,
    "node_modules",
    String.raw`\bSELECT\b`,
    String.raw`\bINSERT INTO\b`,
    String.raw`\bUPDATE \w+ SET\b`,
    "sqlMessage",
    String.raw`\bER_[A-Z_]+`,
    "Failed query",
  ].join("|"),
);
const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupSetter__",
];

const suite = useServer({ env: { LOG_LEVEL: "error" } });
let api: Api;
/**
 * The generated requests' own token of the same company, with every scope but tokens:write: a
 * generated DELETE /v1/tokens/{id} must not revoke the token the later tests use.
 */
let generator: Api;
let operations: { method: string; template: string }[] = [];
const ids: Record<string, number> = {};
const figures = { requests: 0, serverErrors: 0, byStatus: new Map<number, number>() };
const failures: string[] = [];

function rssMb(): number {
  const status = readFileSync(`/proc/${suite.server.process.pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Checks one answer against the rules; failures are collected so a run reports all of them. */
function judge(label: string, status: number, text: string): void {
  figures.requests += 1;
  figures.byStatus.set(status, (figures.byStatus.get(status) ?? 0) + 1);
  if (status >= 500) figures.serverErrors += 1;
  const problems: string[] = [];
  if (status >= 500 || status === 0) problems.push(`status ${status}`);
  if (REVEALING.test(text)) problems.push("reveals internals");
  if (status >= 400) {
    let code: unknown;
    try {
      code = (JSON.parse(text) as { code?: unknown }).code;
    } catch {
      code = undefined;
    }
    if (typeof code !== "string" || !CODES.has(code)) problems.push(`code ${String(code)}`);
  }
  if (problems.length > 0 && failures.length < 20)
    failures.push(`${label} → ${problems.join(", ")}: ${text.slice(0, 160)}`);
}

beforeAll(async () => {
  const company = await newCompany();
  api = suite.api.as(company.token);
  generator = suite.api.as(
    await newToken(company.companyId, {
      name: "hostile generator",
      scopes: ["read", "write", "events:read", "webhooks:read", "webhooks:write", "usage:read"],
    }),
  );
  for (const sample of SAMPLES)
    ids[sample.resource] = (await api.post(`/v1/${sample.resource}`, sample.create)).body.data.id;
  ids.rental = (
    await api.post(`/v1/equipment/${ids.equipment}/rentals`, {
      project_id: ids.projects,
      start_date: "2026-04-01",
    })
  ).body.data.id;
  const paths = (await suite.api.get("/v1/openapi.json")).body.paths as Record<
    string,
    Record<string, unknown>
  >;
  operations = Object.entries(paths).flatMap(([template, ops]) =>
    Object.keys(ops)
      .filter((m) => ["get", "post", "patch", "delete", "put"].includes(m))
      .map((method) => ({ method: method.toUpperCase(), template })),
  );
});

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "-1",
    "0",
    "1e309",
    "NaN",
    "null",
    "[]",
    "{}",
    "' OR 1=1 --",
    "%00",
    "\u0000",
    "\ud800",
    "🏗️".repeat(300),
    "a".repeat(5000),
    "../../etc/passwd",
    "2026-02-30",
    'W/"x"',
    "*",
  ),
);
const queryName = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_NAMES,
    "limit",
    "offset",
    "fields",
    "status",
    "q",
    "sort",
    "after",
    "dry_run",
    "updated_since",
    "include_deleted",
  ),
  fc.string({ maxLength: 12 }),
);
const jsonLeaf = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const hostileBody = fc.oneof(
  fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        ...PROTOTYPE_NAMES,
        "name",
        "status",
        "id",
        "email",
        "budget_amount",
        "client_id",
        "start_date",
        "end_date",
        "currency",
      ),
      fc.string({ maxLength: 10 }),
    ),
    fc.oneof(
      jsonLeaf,
      fc.array(jsonLeaf, { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), jsonLeaf, { maxKeys: 3 }),
    ),
    { maxKeys: 6 },
  ),
  fc.jsonValue({ maxDepth: 4 }),
);
const rawBody = fc.oneof(
  hostileBody.map((body) => JSON.stringify(body)),
  fc.constantFrom(
    "{",
    '{"name":',
    "[1,2",
    '"\\ud800"',
    '{"name":"\\udc00x"}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{}}}',
    "nul",
    "",
    "{}".padStart(3000, " "),
  ),
);
const headerSet = fc.record(
  {
    "if-match": fc.option(
      fc.constantFrom('W/"abc"', '""', "*", "garbage", '"x", W/"y"', '"a"'.repeat(200)),
    ),
    "idempotency-key": fc.option(
      fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("", " ", "é", "k".repeat(300), "\t")),
    ),
    "content-type": fc.option(
      fc.constantFrom(
        "application/json",
        "text/plain",
        "application/json; charset=latin1",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
      ),
    ),
    "x-dry-run": fc.option(fc.constantFrom("1", "true", "yes", "0", "")),
  },
  { requiredKeys: [] },
);

function pathFor(template: string, idPart: string | undefined): string {
  const resource = template.split("/")[2]!;
  return template
    .replace("{id}", idPart ?? String(ids[resource] ?? 1))
    .replace("{rental_id}", idPart ?? String(ids.rental));
}

describe("hostile input", () => {
  test("generated requests on every operation: no 5xx, no internals, always a documented code", async () => {
    const rssBefore = rssMb();
    const request = fc.record({
      op: fc.constantFrom(...operations),
      idPart: fc.option(
        fc.oneof(
          fc.constantFrom(
            "0",
            "-1",
            "1.5",
            "99999999999999999999",
            "abc",
            "%2e%2e",
            "__proto__",
            "constructor",
            "1%00",
          ),
          fc.string({ maxLength: 8 }).map(encodeURIComponent),
        ),
        { freq: 3 },
      ),
      query: fc.array(fc.tuple(queryName, hostileString), { maxLength: 4 }),
      body: rawBody,
      headers: headerSet,
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ op, idPart, query, body, headers }) => {
        const search = new URLSearchParams();
        for (const [name, value] of query) search.append(name, value);
        const path = `${pathFor(op.template, idPart ?? undefined)}${query.length > 0 ? `?${search}` : ""}`;
        const sendHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) {
          if (typeof value === "string" && /^[\t\x20-\x7e]*$/.test(value))
            sendHeaders[name] = value;
        }
        const hasBody = op.method === "POST" || op.method === "PATCH" || op.method === "PUT";
        const response = await generator.request(op.method, path, {
          rawBody: hasBody ? body : undefined,
          headers: { "content-type": "application/json", ...sendHeaders },
        });
        judge(`${op.method} ${path.slice(0, 120)}`, response.status, response.text);
        return true;
      }),
      { numRuns: 3000, seed: 20261122 },
    );
    const rssAfter = rssMb();
    console.log(
      `[fault: hostile input] ${figures.requests} generated requests over ${operations.length} operations: ` +
        `${[...figures.byStatus]
          .sort((x, y) => x[0] - y[0])
          .map(([s, n]) => `${s}×${n}`)
          .join(" ")}; 5xx ${figures.serverErrors}; RSS ${rssBefore}→${rssAfter} MB`,
    );
    expect(failures).toEqual([]);
  });

  test("JSON nested 5,000 deep, wide objects and long strings are refused as input, not crashes", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const deepObject = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const wide = JSON.stringify(
      Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, i])),
    );
    // Its own worker: the generated requests before may have deleted the shared one.
    const worker = (await api.post("/v1/workers", { name: "Deep target" })).body.data.id;
    for (const body of [
      deep,
      deepObject,
      `{"name":${deepObject}}`,
      wide,
      JSON.stringify({ name: "x".repeat(900_000) }),
    ]) {
      for (const [method, path] of [
        ["POST", "/v1/workers"],
        ["PATCH", `/v1/workers/${worker}`],
        ["POST", "/v1/workers?dry_run=1"],
        ["POST", "/v1/workers/batch"],
      ] as const) {
        const response = await api.request(method, path, {
          rawBody: body,
          headers: {
            "content-type": "application/json",
            "idempotency-key": `deep-${crypto.randomUUID()}`,
          },
        });
        judge(`${method} ${path} (${body.length} bytes)`, response.status, response.text);
        expect([400, 413, 422]).toContain(response.status);
      }
    }
    expect(failures).toEqual([]);
  });

  test("query parameters named after Object.prototype members are invalid_query on every list", async () => {
    for (const name of PROTOTYPE_NAMES) {
      for (const path of [
        "/v1/projects",
        "/v1/workers",
        "/v1/events",
        "/v1/trades",
        `/v1/equipment/${ids.equipment}/rentals`,
      ]) {
        const response = await api.get(`${path}?${encodeURIComponent(name)}=1`);
        judge(`GET ${path}?${name}=1`, response.status, response.text);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe("invalid_query");
      }
    }
  });

  test("requests fetch() would not send: HTTP/1.0 without Host, dot segments, bad request lines", async () => {
    const port = suite.server.port;
    const cases: [string, string, number[]][] = [
      ["HTTP/1.0 without Host or token", "GET /v1/projects HTTP/1.0\r\n\r\n", [401]],
      [
        "HTTP/1.0 without Host",
        "GET /v1/projects HTTP/1.0\r\nAuthorization: Bearer nope\r\n\r\n",
        [401],
      ],
      ["empty Host", "GET /v1/projects HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n", [400, 401]],
      [
        "dot segments",
        "GET /v1/clients/../projects/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        [400, 401, 404],
      ],
      [
        "absolute-form target",
        "GET http://evil.example/v1/projects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        [400, 401, 404],
      ],
      // Bun's parser closes the connection on a method it does not know: no answer, nothing revealed.
      [
        "unknown method",
        "BREW /v1/projects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        [0, 400, 405],
      ],
      ["garbage request line", "\x16\x03\x01 hello\r\n\r\n", [0, 400]],
    ];
    for (const [label, text, allowed] of cases) {
      const response = await rawRequest(port, text);
      // Bun itself may refuse a malformed request (a bare 400, or closing) before the app sees it.
      const appAnswered = response.head.toLowerCase().includes("x-request-id");
      console.log(
        `[fault: hostile input] ${label}: ${response.status}${appAnswered ? "" : " (from Bun, before the app)"}`,
      );
      expect(allowed).toContain(response.status);
      expect(response.body).not.toMatch(REVEALING);
      expect(response.body).not.toMatch(/<html|<!doctype/i);
      if (appAnswered) judge(label, response.status, response.body);
    }
    expect(failures).toEqual([]);
  });

  test("four 100 MB chunked uploads are refused with 413 while they stream, and memory stays bounded", async () => {
    const rssBefore = rssMb();
    const uploads = await Promise.all(
      Array.from({ length: 4 }, () =>
        chunkedUpload(
          suite.server.port,
          "/v1/workers",
          { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
          100 * 1024 * 1024,
        ),
      ),
    );
    const rssAfter = rssMb();
    const written = uploads.map((u) => Math.round(u.bytesWritten / 1024 / 1024));
    console.log(
      `[fault: hostile input] 4 × 100 MB chunked uploads: ` +
        `${uploads.map((u) => u.status).join(", ")}; MB sent before the answer ` +
        `${written.join(", ")}; server RSS ${rssBefore}→${rssAfter} MB`,
    );
    for (const upload of uploads) {
      expect(upload.status).toBe(413);
      expect(upload.body).toContain("payload_too_large");
    }
    expect(rssAfter - rssBefore).toBeLessThan(100);
    // And the server still serves.
    expect((await api.get("/v1/workers?limit=1")).status).toBe(200);
  });
});
