// Browser apps on other origins: preflights are answered and the SDK's headers are readable.
import { beforeAll, expect, test } from "bun:test";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer();
let token: string;

beforeAll(async () => {
  token = (await newCompany()).token;
});

test("a preflight for a keyed, conditional write is allowed from any origin", async () => {
  const response = await fetch(`${suite.server.baseUrl}/v1/projects/1`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "PATCH",
      "access-control-request-headers": "authorization, content-type, idempotency-key, if-match",
    },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect(response.headers.get("access-control-allow-methods")).toContain("PATCH");
  for (const header of ["Authorization", "Idempotency-Key", "If-Match", "X-Dry-Run"]) {
    expect(response.headers.get("access-control-allow-headers")).toContain(header);
  }
});

test("responses and problems expose ETag, Location, Retry-After and the request id to scripts", async () => {
  const headers = { origin: "https://app.example", authorization: `Bearer ${token}` };
  const list = await fetch(`${suite.server.baseUrl}/v1/projects`, { headers });
  expect(list.headers.get("access-control-allow-origin")).toBe("*");
  expect(list.headers.get("access-control-expose-headers")).toContain("ETag");
  const problem = await fetch(`${suite.server.baseUrl}/v1/projects/999999999`, { headers });
  expect(problem.status).toBe(404);
  expect(problem.headers.get("access-control-allow-origin")).toBe("*");
  expect(problem.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
});

test("an attachment's upload and ranged download pass their preflights and expose their headers", async () => {
  const preflight = await fetch(`${suite.server.baseUrl}/v1/projects/1/attachments`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers":
        "authorization, content-type, content-digest, idempotency-key",
    },
  });
  expect(preflight.status).toBe(204);
  for (const header of ["Content-Digest", "Idempotency-Key", "Range", "If-Range"])
    expect(preflight.headers.get("access-control-allow-headers")).toContain(header);

  const headers = { origin: "https://app.example", authorization: `Bearer ${token}` };
  const project = await fetch(`${suite.server.baseUrl}/v1/projects`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ name: "Cors files" }),
  });
  const { data } = (await project.json()) as { data: { id: number } };
  const upload = await fetch(
    `${suite.server.baseUrl}/v1/projects/${data.id}/attachments?filename=a.txt`,
    { method: "POST", headers: { ...headers, "content-type": "text/plain" }, body: "hello cors" },
  );
  expect(upload.status).toBe(201);
  const { data: file } = (await upload.json()) as { data: { id: number } };
  const part = await fetch(`${suite.server.baseUrl}/v1/attachments/${file.id}/content`, {
    headers: { ...headers, range: "bytes=0-4" },
  });
  expect(part.status).toBe(206);
  expect(await part.text()).toBe("hello");
  expect(part.headers.get("access-control-allow-origin")).toBe("*");
  for (const header of ["Content-Disposition", "Content-Range", "Accept-Ranges", "ETag"])
    expect(part.headers.get("access-control-expose-headers")).toContain(header);
});
