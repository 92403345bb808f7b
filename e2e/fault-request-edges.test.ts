// Fault suite: the edges of a request. A body over 1 MiB is the 413 problem however it is sent; a
// body nested deeper than 32 levels is 400 before anything walks it, with or without a key; an
// external id in the path is percent-decoded exactly once and held, like the body's, to 1-255
// characters without control or bidi characters; a client's X-Request-Id is used only in its one
// allowed shape; a body still trickling in 10 s after its request is 408. Sent over raw sockets
// where fetch() would rewrite the request.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Api } from "@erp/testing/api";
import { newCompany } from "@erp/testing/company";
import { chunkedUpload, lengthUpload, rawRequest, trickledUpload } from "@erp/testing/raw-http";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
let api: Api;

beforeAll(async () => {
  api = suite.api.as((await newCompany()).token);
});

/** A raw request with a JSON body: the path goes on the wire exactly as written here. */
async function raw(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; head: string }> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const lines = [
    `${method} ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    `Authorization: Bearer ${api.token}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(text)}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    text,
  ];
  const response = await rawRequest(suite.server.port, lines.join("\r\n"));
  return {
    status: response.status,
    head: response.head,
    body: response.body ? JSON.parse(response.body) : undefined,
  };
}

describe("bodies", () => {
  test(
    "over 2 MB by Content-Length, in chunks and with Expect: 100-continue: the 413 " +
      "payload_too_large problem each time",
    async () => {
      const headers = { Authorization: `Bearer ${api.token}`, "Content-Type": "application/json" };
      const size = 2.5 * 1024 * 1024;
      const answers = {
        "Content-Length": await lengthUpload(suite.server.port, "/v1/workers", headers, size),
        chunked: await chunkedUpload(suite.server.port, "/v1/workers", headers, size),
        "Expect: 100-continue": await lengthUpload(
          suite.server.port,
          "/v1/workers",
          headers,
          size,
          true,
        ),
        // Past any limit a runtime might keep of its own.
        "Content-Length of 5 GB": await lengthUpload(
          suite.server.port,
          "/v1/workers",
          headers,
          5 * 1024 ** 3,
          true,
        ),
      };
      for (const [how, answer] of Object.entries(answers)) {
        console.log(
          `[fault: edges] ${how}: ${answer.status}, ${Math.round(answer.bytesWritten / 1024)} KiB ` +
            `written before the answer`,
        );
        expect([how, answer.status]).toEqual([how, 413]);
        expect(answer.head.toLowerCase()).toContain("content-type: application/problem+json");
        expect(answer.head.toLowerCase()).toContain("x-request-id:");
        expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: "payload_too_large" });
      }
      expect((await api.get("/v1/workers?limit=1")).status).toBe(200);
    },
  );

  test(
    "a body trickled in one byte every 400 ms, by Content-Length and chunked: 408 " +
      "request_timeout problem about 10 s after the request, nothing written",
    async () => {
      const headers = { Authorization: `Bearer ${api.token}`, "Content-Type": "application/json" };
      const name = `Trickled ${crypto.randomUUID()}`;
      // Some 80 bytes: at 2.5 bytes a second, far from complete after 10 s.
      const body = JSON.stringify({ name, email: "trickle@example.com" });
      const answers = await Promise.all(
        [false, true].map((chunked) =>
          trickledUpload(suite.server.port, "/v1/workers", headers, body, {
            intervalMs: 400,
            chunked,
          }),
        ),
      );
      for (const [index, answer] of answers.entries()) {
        const how = index === 0 ? "Content-Length" : "chunked";
        console.log(
          `[fault: edges] trickled (${how}): ${answer.status} after ${answer.answeredAfterMs} ms, ` +
            `${answer.bytesWritten} bytes written`,
        );
        expect([how, answer.status]).toEqual([how, 408]);
        expect(answer.head.toLowerCase()).toContain("content-type: application/problem+json");
        expect(answer.head.toLowerCase()).toContain("connection: close");
        expect(JSON.parse(answer.body)).toMatchObject({
          type: "about:blank",
          title: "Request Timeout",
          status: 408,
          code: "request_timeout",
        });
        expect(answer.answeredAfterMs).toBeGreaterThan(9_000);
        expect(answer.answeredAfterMs).toBeLessThan(11_000);
      }
      const found = await api.get(`/v1/workers?q=${encodeURIComponent(name)}`);
      expect(found.body.data).toEqual([]);
    },
  );

  test(
    "depth 33, 50,000 and 200,000, with and without an Idempotency-Key, on every kind of " +
      "write: 400 malformed_json, never 5xx",
    async () => {
      const worker = (await api.post("/v1/workers", { name: "Deep target" })).body.data.id;
      const nested = (levels: number, inner: string): string =>
        `${'{"a":'.repeat(levels - 1)}${inner}${"}".repeat(levels - 1)}`;
      const bodies: [string, string][] = [
        ["33 levels", `{"name":"Deep","note":${nested(32, "[1]")}}`],
        ["50,000 levels", `{"name":${"[".repeat(49_999)}${"]".repeat(49_999)}}`],
        ["200,000 levels", `${"[".repeat(200_000)}${"]".repeat(200_000)}`],
      ];
      const writes = [
        ["POST", "/v1/workers"],
        ["PATCH", `/v1/workers/${worker}`],
        ["PUT", "/v1/clients/by-external-id/deep-1"],
        ["POST", "/v1/clients/batch"],
        ["POST", "/v1/webhook-endpoints"],
      ] as const;
      let answers = 0;
      for (const [label, body] of bodies) {
        for (const [method, path] of writes) {
          for (const key of [undefined, `deep-${crypto.randomUUID()}`]) {
            const response = await api.request(method, path, {
              rawBody: body,
              headers: {
                "content-type": "application/json",
                ...(key ? { "idempotency-key": key } : {}),
              },
            });
            expect([
              label,
              method,
              path,
              key !== undefined,
              response.status,
              response.body.code,
            ]).toEqual([label, method, path, key !== undefined, 400, "malformed_json"]);
            expect(response.body.detail).toContain("deeper than 32 levels");
            answers += 1;
          }
        }
      }
      // 32 levels are not refused for their depth.
      const deepest = await api.post(
        "/v1/workers",
        JSON.parse(`{"name":"Deep","note":${nested(31, "[1]")}}`),
        { headers: { "idempotency-key": `deep-${crypto.randomUUID()}` } },
      );
      expect([deepest.status, deepest.body.errors?.map((e: { field: string }) => e.field)]).toEqual(
        [422, ["note"]],
      );
      console.log(`[fault: edges] ${answers} over-deep bodies: all 400 malformed_json`);
    },
  );
});

describe("external ids", () => {
  const upsert = (
    encoded: string,
    body: Record<string, unknown> = { name: `Upserted ${encoded}` },
  ) => raw("PUT", `/v1/clients/by-external-id/${encoded}`, body);
  const byExternalId = async (externalId: string): Promise<{ id: number; name: string }[]> =>
    (await api.get(`/v1/clients?external_id=${encodeURIComponent(externalId)}&fields=name`)).body
      .data;

  test("the path segment is percent-decoded exactly once: 100%25 is 100%, %252541 is %2541 (never %41)", async () => {
    const created = await upsert("100%25", { name: "Hundred percent" });
    expect(created.status).toBe(201);
    expect(await byExternalId("100%")).toEqual([
      { id: created.body.data.id, name: "Hundred percent" },
    ]);
    const again = await upsert("100%25", { name: "Hundred percent, again" });
    expect([again.status, again.body.data.id]).toEqual([200, created.body.data.id]);

    const percent41 = (await api.post("/v1/clients", { name: "Percent 41", external_id: "%41" }))
      .body.data.id;
    const twice = await upsert("%252541", { name: "Percent 2541" });
    expect(twice.status).toBe(201);
    expect(twice.body.data.id).not.toBe(percent41);
    expect(await byExternalId("%2541")).toEqual([{ id: twice.body.data.id, name: "Percent 2541" }]);
    expect(await byExternalId("%41")).toEqual([{ id: percent41, name: "Percent 41" }]);
    // %41 decodes to A: its own record, not the one whose id is the text %41.
    const letter = await upsert("%41", { name: "Letter A" });
    expect(letter.status).toBe(201);
    expect(await byExternalId("A")).toEqual([{ id: letter.body.data.id, name: "Letter A" }]);
    // Reserved characters arrive as sent once decoded.
    expect((await upsert("a%2Fb%3F%23", { name: "Slash" })).status).toBe(201);
    expect(await byExternalId("a/b?#")).toHaveLength(1);
  });

  test(
    "malformed encodings, control and bidi characters in the path are 422 on external_id, " +
      'never 500 and never ""',
    async () => {
      const before = (await api.get("/v1/clients?limit=1")).body.meta.total;
      for (const encoded of [
        "%",
        "abc%",
        "%zz",
        "%ED%A0%80",
        "%C3",
        "%FF",
        "%00",
        "a%00b",
        "line%0Abreak",
        "tab%09",
        "%7F",
        "%C2%85",
        "%E2%80%AE",
        "%E2%81%A6x",
        "%D8%9C",
        "x".repeat(256),
      ]) {
        const response = await upsert(encoded);
        expect([encoded, response.status, response.body?.code]).toEqual([
          encoded,
          422,
          "validation_failed",
        ]);
        expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual([
          "external_id",
        ]);
      }
      expect((await api.get("/v1/clients?limit=1")).body.meta.total).toBe(before);
      expect(await byExternalId("")).toEqual([]);
    },
  );

  test('in bodies too: "", NUL, C1, bidi controls and 256 characters are 422; 255 characters are fine', async () => {
    for (const externalId of [
      "",
      "\u0000",
      "a\u0000b",
      "a\nb",
      "\u0085",
      "\u202Eevil",
      "x\u2066",
      "\u200F",
      "y".repeat(256),
    ]) {
      const created = await api.post("/v1/clients", { name: "Bad id", external_id: externalId });
      expect([JSON.stringify(externalId), created.status, created.body.errors?.[0]?.field]).toEqual(
        [JSON.stringify(externalId), 422, "external_id"],
      );
      const batch = await api.post("/v1/clients/batch", {
        items: [{ name: "Bad id", external_id: externalId }],
      });
      expect(batch.body.data.results[0].status).toBe(422);
    }
    const made = await api.post("/v1/clients", { name: "Long id", external_id: "z".repeat(255) });
    expect(made.status).toBe(201);
    expect((await api.patch(`/v1/clients/${made.body.data.id}`, { external_id: "" })).status).toBe(
      422,
    );
    expect(
      (await api.patch(`/v1/clients/${made.body.data.id}`, { external_id: "ok\u202E" })).status,
    ).toBe(422);
    expect(
      (await api.patch(`/v1/clients/${made.body.data.id}`, { external_id: "crm-1042 ünïcödé 🏗️" }))
        .status,
    ).toBe(200);
  });
});

describe("request ids", () => {
  test(
    "a client's X-Request-Id is used only when it matches ^[A-Za-z0-9._:-]{1,128}$; " +
      "otherwise it is neither echoed nor stored",
    async () => {
      const generated = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
      const accepted = ["trace-123", "a", "Span:42.7_x-y", "k".repeat(128)];
      const replaced = [
        "<script>",
        "a b",
        "k".repeat(129),
        "naïve",
        "x;y",
        '"quoted"',
        "%41",
        "tab\there",
      ];
      for (const requestId of [...accepted, ...replaced]) {
        const created = await api.post(
          "/v1/clients",
          { name: `Traced ${requestId.length}` },
          { headers: { "x-request-id": requestId } },
        );
        expect(created.status).toBe(201);
        const answered = created.headers.get("x-request-id")!;
        const stored = (await api.get(`/v1/clients/${created.body.data.id}/events`)).body.data[0]
          .request_id;
        if (accepted.includes(requestId))
          expect([answered, stored]).toEqual([requestId, requestId]);
        else {
          expect(answered).toMatch(generated);
          expect(stored).toBe(answered);
        }
        const refused = await api.post(
          "/v1/clients",
          { name: "" },
          { headers: { "x-request-id": requestId } },
        );
        expect(refused.body.request_id).toBe(refused.headers.get("x-request-id"));
        expect(refused.text.includes(requestId)).toBe(accepted.includes(requestId));
      }
    },
  );
});
