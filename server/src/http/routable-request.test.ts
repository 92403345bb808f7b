import { expect, test } from "bun:test";
import { routableRequest } from "./routable-request.ts";

test("a URL Elysia routes right is kept; a short host or a relative URL gets a placeholder host", () => {
  const usual = new Request("http://localhost:3000/v1/projects?limit=1");
  expect(routableRequest(usual)).toBe(usual);
  expect(
    routableRequest(new Request("http://erp/v1/projects/7", { headers: { host: "erp" } })).url,
  ).toBe("http://localhost/v1/projects/7");
  expect(routableRequest(new Request("http://x/v1/projects?q=a")).url).toBe(
    "http://localhost/v1/projects?q=a",
  );
});
