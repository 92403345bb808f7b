import { expect, test } from "bun:test";
import { publicOrigin } from "./origin.ts";

const request = (headers: Record<string, string> = {}) =>
  new Request("http://10.0.0.5:3000/v1/openapi.json", { headers });

test("the request's own origin, or what a proxy forwarded; a malformed forwarded host is ignored", () => {
  expect(publicOrigin(request())).toBe("http://10.0.0.5:3000");
  expect(
    publicOrigin(request({ "x-forwarded-proto": "https", "x-forwarded-host": "erp.example.com" })),
  ).toBe("https://erp.example.com");
  expect(
    publicOrigin(
      request({
        "x-forwarded-proto": "https, http",
        "x-forwarded-host": "api.example.com:8443, inner",
      }),
    ),
  ).toBe("https://api.example.com:8443");
  expect(publicOrigin(request({ "x-forwarded-host": "evil.example/<script>" }))).toBe(
    "http://10.0.0.5:3000",
  );
  expect(publicOrigin(request({ "x-forwarded-proto": "javascript" }))).toBe("http://10.0.0.5:3000");
});
