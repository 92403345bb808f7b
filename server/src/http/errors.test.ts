// The error handler: whatever fails, and at whatever stage, the answer is the truthful problem.
import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandler } from "./errors.ts";
import { payloadTooLarge } from "../refusals/catalogue.ts";

function appFailingWith(stage: "parse" | "handler", failure: unknown) {
  return new Elysia()
    .use(errorHandler(() => ["GET"]))
    .onParse(() => {
      if (stage === "parse") throw failure;
      return {};
    })
    .post("/v1/things", () => {
      throw failure;
    })
    .get("/v1/things/:id", () => "ok");
}

async function answer(
  app: ReturnType<typeof appFailingWith>,
  request: Request,
): Promise<{ status: number; code: string; retryAfter: string | null }> {
  const response = await app.handle(request);
  const body = (await response.json()) as { code: string; detail: string };
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(body.detail).not.toContain("SELECT");
  return {
    status: response.status,
    code: body.code,
    retryAfter: response.headers.get("retry-after"),
  };
}

const post = () =>
  new Request("http://localhost/v1/things", {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
const lostConnection = new Error("Failed query: SELECT * FROM api_tokens WHERE token_hash = ?", {
  cause: { code: "PROTOCOL_CONNECTION_LOST", fatal: true },
});

test("a database failure thrown while a body is parsed is 503 with Retry-After, not 400 malformed_json", async () => {
  expect(await answer(appFailingWith("parse", lostConnection), post())).toEqual({
    status: 503,
    code: "database_unavailable",
    retryAfter: "2",
  });
  expect(await answer(appFailingWith("parse", { errno: 1213 }), post())).toEqual({
    status: 503,
    code: "database_unavailable",
    retryAfter: "2",
  });
});

test("our own refusals during parsing pass through; a syntax error is malformed_json", async () => {
  expect(await answer(appFailingWith("parse", payloadTooLarge(10)), post())).toMatchObject({
    status: 413,
    code: "payload_too_large",
  });
  expect(await answer(appFailingWith("parse", new SyntaxError("bad")), post())).toMatchObject({
    status: 400,
    code: "malformed_json",
  });
});

test("a bug is 500 internal; an unknown method on a known path is 405", async () => {
  expect(
    await answer(appFailingWith("handler", new TypeError("x is undefined")), post()),
  ).toMatchObject({ status: 500, code: "internal" });
  const wrongMethod = await appFailingWith("handler", undefined).handle(
    new Request("http://localhost/v1/things/1", { method: "PUT" }),
  );
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get("allow")).toBe("GET");
});

test("a unique value the index refused is 409 unique_violation on its field; another duplicate is a bug", async () => {
  const duplicate = (key: string) =>
    new Error("Failed query: INSERT INTO projects …", {
      cause: {
        errno: 1062,
        code: "ER_DUP_ENTRY",
        sqlMessage: `Duplicate entry '7-abc-1' for key '${key}'`,
      },
    });
  for (const [key, field] of [
    ["projects_external_id", "external_id"],
    ["projects.projects_code", "code"],
    ["equipment_serial", "serial_number"],
  ] as const) {
    const response = await appFailingWith("handler", duplicate(key)).handle(post());
    const body = (await response.json()) as { code: string; errors: { field: string }[] };
    expect({
      status: response.status,
      code: body.code,
      fields: body.errors.map((error) => error.field),
    }).toEqual({ status: 409, code: "unique_violation", fields: [field] });
  }
  expect(await answer(appFailingWith("handler", duplicate("PRIMARY")), post())).toMatchObject({
    status: 500,
    code: "internal",
  });
});
