// Every route's handler names the parts of the request it uses, so Elysia prepares only those.
// Elysia reads a handler's parameter list to decide what to prepare for it: one that takes the
// whole context has every header copied into an object, its cookies parsed and its query string
// parsed on every request, whether it reads them or not (bench/README.md). Each route here gets a
// request with headers, a cookie and a query string, and the context it was answered with is
// looked at afterwards: none may hold a copy of the headers, parsed cookies or a parsed query.
import { afterAll, expect, test } from "bun:test";
import { buildApp, type AppDeps } from "@erp/server/app";
import { closeTestDb, testDb } from "@erp/testing/company";

const inert = new Proxy({}, { get: () => () => {} });

afterAll(closeTestDb);

test("no route has Elysia copy headers, parse cookies or parse the query for it", async () => {
  const built = buildApp({ database: testDb(), meter: inert } as unknown as AppDeps);
  const prepared: string[] = [];
  // Elysia also reads a hook's source to decide what to prepare for the routes it runs on: this one
  // shows it none, so that looking at the context asks for nothing.
  const look = (context: Record<string, unknown>) => {
    const parts = ["headers", "cookie", "query"].filter((part) => context[part] !== undefined);
    prepared.push(parts.join(","));
  };
  look.toString = () => "() => {}";
  // A hook reaches the routes added after it: the built app goes into one that has the hook first.
  const Elysia = built.constructor as new () => typeof built;
  const app = new Elysia().onAfterResponse({ as: "global" }, look as never).use(built);

  const routes = app.routes.filter((route) => route.method !== "OPTIONS");
  const wasteful: string[] = [];
  for (const route of routes) {
    const path = route.path.replace(/:[a-z_]+/gi, "1");
    prepared.length = 0;
    const response = await app.handle(
      new Request(`http://localhost${path}?probe=1`, {
        method: route.method,
        headers: { cookie: "session=1", "x-probe": "1" },
      }),
    );
    await response.arrayBuffer();
    // The look runs once the response is on its way.
    for (let wait = 0; prepared.length === 0 && wait < 100; wait += 1) await Bun.sleep(5);
    expect(prepared).toHaveLength(1);
    if (prepared[0]) wasteful.push(`${route.method} ${route.path}: ${prepared[0]}`);
  }
  expect(routes.length).toBeGreaterThan(60);
  expect(wasteful).toEqual([]);
});
