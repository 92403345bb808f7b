// Every route's handler names the parts of the request it uses, so Elysia prepares only those.
// Elysia reads a handler's parameter list to decide what to prepare for it: one that takes the
// whole context has every header copied into an object, its cookies parsed and its query string
// parsed on every request, whether it reads them or not (bench/README.md).
import { afterAll, expect, test } from "bun:test";
import { buildApp, type AppDeps } from "@erp/server/app";
import { closeTestDb, testDb } from "@erp/testing/company";

const inert = new Proxy({}, { get: () => () => {} });

afterAll(closeTestDb);

test("no route has Elysia copy headers, parse cookies or parse the query for it", () => {
  const app = buildApp({ database: testDb(), meter: inert } as unknown as AppDeps);
  const routes = app.routes as unknown as { method: string; path: string; compile(): unknown }[];
  const wasteful = routes
    .filter((route) =>
      /parseCookie|headers\.toJSON\(\)|parseQueryFromURL/.test(String(route.compile())),
    )
    .map((route) => `${route.method} ${route.path}`);
  expect(routes.length).toBeGreaterThan(60);
  expect(wasteful).toEqual([]);
});
