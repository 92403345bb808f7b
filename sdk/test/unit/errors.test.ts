// Errors: each status becomes its own ErpError subclass carrying status, code, requestId, errors and headers.
import { describe, expect, test } from "bun:test";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ErpError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
} from "../../mod.ts";
import { clientWith, fakeFetch, problem, rejectionOf } from "../helpers/fake-fetch.ts";

const fail = (response: () => Response) =>
  rejectionOf(clientWith(fakeFetch(response).fetch, { maxRetries: 0 }).projects.get(1));

describe("error classes", () => {
  const cases = [
    [400, "invalid_query", BadRequestError],
    [401, "unauthorized", AuthenticationError],
    [402, "feature_off", PaymentRequiredError],
    [403, "insufficient_scope", PermissionError],
    [404, "not_found", NotFoundError],
    [409, "delete_blocked", ConflictError],
    [412, "precondition_failed", PreconditionFailedError],
    [422, "validation_failed", ValidationError],
    [429, "rate_limited", RateLimitError],
    [500, "internal", InternalServerError],
    [503, "database_unavailable", InternalServerError],
    [415, "unsupported_media_type", ErpError],
  ] as const;
  for (const [status, code, ErrorClass] of cases) {
    test(`${status} ${code} is a ${ErrorClass.name}`, async () => {
      const error = await fail(() => problem(status, code));
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toBeInstanceOf(ErpError);
      expect(error.name).toBe(ErrorClass.name);
      expect(error.status).toBe(status);
      expect(error.code).toBe(code);
      expect(error.requestId).toBe("req_1");
    });
  }

  test("a 422 lists every failing field, in errors and in the message", async () => {
    const errors = [
      { field: "name", code: "required", message: "is required" },
      { field: "status", code: "enum", message: "is not a status" },
    ];
    const error = await fail(() => problem(422, "validation_failed", {}, { errors }));
    expect(error.errors).toEqual(errors);
    expect(error.message).toBe(
      "422 validation_failed: failed: validation_failed (name: is required; status: is not a status)",
    );
  });

  test("headers are kept, so Retry-After and WWW-Authenticate can be read", async () => {
    const error = await fail(() => problem(401, "unauthorized", { "www-authenticate": "Bearer" }));
    expect(error.headers.get("www-authenticate")).toBe("Bearer");
  });

  test(
    "a non-JSON error body (a proxy's 502 page) still becomes a typed error, with the header " +
      "request id",
    async () => {
      const error = await fail(
        () =>
          new Response("<html>Bad gateway</html>", {
            status: 502,
            headers: { "x-request-id": "edge-1" },
          }),
      );
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error.code).toBe("http_502");
      expect(error.requestId).toBe("edge-1");
      expect(error.body).toBe("<html>Bad gateway</html>");
    },
  );
});
