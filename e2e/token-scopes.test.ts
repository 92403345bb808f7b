// Scopes (docs/tokens.md), as a matrix generated from the served OpenAPI document: every operation
// sent with a token holding exactly the scope its security requirement names, and what its example
// body asks beyond it (not refused), with
// a token holding every other scope (403 insufficient_scope naming it, nothing written, no dry-run
// metered), with a read-only token (no write of any kind, dry-run or real), and with record ids of
// another company (404 for every token, never 403).
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { RESOURCES } from "@erp/server/registry";
import { sensitiveScope } from "@erp/server/scopes";
import type { Api, ApiResponse } from "@erp/testing/api";
import { newCompany, newToken, type TestCompany } from "@erp/testing/company";
import { documentedHostsEnv } from "@erp/testing/documented-hosts";
import { collectionsOf, ExampleRunner, exampleBody } from "@erp/testing/example-requests";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer({ env: { ...documentedHostsEnv(), ERP_USAGE_FLUSH_MS: "100" } });

type Json = Record<string, any>;

interface Operation {
  method: string;
  template: string;
  spec: Json;
  /** Any one of these scopes lets a token call it; empty: any token. */
  anyOf: string[];
  write: boolean;
}

const READ_ONLY = ["read", "events:read", "webhooks:read", "usage:read"];

let document: Json;
let operations: Operation[];
/** Every scope the document names. */
let concrete: string[];
let company: TestCompany;
let runner: ExampleRunner;
let other: ExampleRunner;
const tokens = new Map<string, Api>();

/** An Api with a token of the company holding exactly `scopes` (one token per set). */
async function holding(scopes: readonly string[]): Promise<Api> {
  const key = [...scopes].sort().join(" ");
  let api = tokens.get(key);
  if (!api) {
    api = suite.api.as(
      await newToken(company.companyId, { name: key.slice(0, 100), scopes: [...scopes] }),
    );
    tokens.set(key, api);
  }
  return api;
}

/** Which concrete scopes a token holding `held` has, by asking nothing: the rule of docs/tokens.md. */
function grants(held: string, needed: string): boolean {
  if (held === "*" || held === needed) return true;
  const [family, access] = needed.split(":");
  if (access === "read" && held === `${family}:write`) return true;
  if (["events", "webhooks", "usage", "tokens"].includes(family!)) return false;
  return held === "write" || (access === "read" && held === "read");
}

/** Every concrete scope but those that would let a token call `operation`. */
const allBut = (operation: Operation): string[] =>
  concrete.filter((scope) => !operation.anyOf.some((needed) => grants(scope, needed)));

/**
 * What an operation's example asks of a token beyond the operation's own scope: a token grants,
 * and revokes, only scopes it holds (making or revoking one made from the create's example needs
 * its scopes), and a webhook endpoint subscribes only to events of resources its token may read
 * (the example's `project.*` and `worker.updated`: `read` covers them).
 */
function alsoNeeded(operation: Operation): string[] {
  const write = operation.method === "post" || operation.method === "patch";
  if (operation.template.startsWith("/v1/tokens") && operation.method !== "get")
    return (exampleBody(document, document.paths["/v1/tokens"].post) as { scopes: string[] })
      .scopes;
  if (write && /^\/v1\/webhook-endpoints(\/\{id\})?$/.test(operation.template)) return ["read"];
  // An example that sets a sensitive field (a worker's hourly_rate) needs its sensitive scope too.
  const body = operation.method === "get" ? undefined : exampleBody(document, operation.spec);
  const text = body === undefined ? "" : JSON.stringify(body);
  return sensitiveNames().some((name) => text.includes(`"${name}":`)) ? ["sensitive"] : [];
}

/** The fields the document marks `x-sensitive`, in any schema. */
function sensitiveNames(): string[] {
  const schemas = Object.values(document.components.schemas as Record<string, Json>);
  return [
    ...new Set(
      schemas.flatMap((schema) =>
        Object.entries((schema.properties ?? {}) as Record<string, Json>)
          .filter(([, property]) => property["x-sensitive"] === true)
          .map(([name]) => name),
      ),
    ),
  ];
}

/** Runs `work` over `items`, a few at a time. */
async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/**
 * Sends the operation's example by `api` to records made beforehand (never a fresh one: what a
 * refused request must not write is checked afterwards).
 */
async function sendAs(api: Api, operation: Operation, headers?: Record<string, string>) {
  const path = await runner.fill(operation.template, operation.spec, false);
  const body = operation.spec.requestBody ? exampleBody(document, operation.spec) : undefined;
  return api.request(operation.method.toUpperCase(), path, {
    body,
    ...(headers ? { headers } : {}),
  });
}

const describeCall = (operation: Operation, response: { status: number; text: string }) =>
  `${operation.method} ${operation.template} → ${response.status} ${response.text.slice(0, 200)}`;

/** What a company has written: its latest event, its tokens and its webhook endpoints. */
async function written(api: Api): Promise<unknown> {
  const [events, tokenList, endpoints] = await Promise.all([
    api.get("/v1/events?after=latest"),
    api.get("/v1/tokens"),
    api.get("/v1/webhook-endpoints"),
  ]);
  return {
    cursor: events.body.meta.next_cursor,
    tokens: tokenList.body.data.map((one: Json) => one.id),
    endpoints: endpoints.body.data,
  };
}

async function dryRunsMetered(api: Api): Promise<number> {
  await Bun.sleep(400);
  return (await api.get("/v1/usage")).body.data.dry_run_requests;
}

function expectInsufficientScope(operation: Operation, response: ApiResponse): void {
  expect({ call: describeCall(operation, response), status: response.status }).toEqual({
    call: describeCall(operation, response),
    status: 403,
  });
  expect(response.body.code).toBe("insufficient_scope");
  const challenge = response.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain(`scope="${operation.anyOf.join(" ")}"`);
  for (const scope of operation.anyOf) expect(response.body.detail).toContain(scope);
}

beforeAll(async () => {
  document = (await suite.api.get("/v1/openapi.json", { token: null })).body;
  operations = Object.entries(document.paths as Record<string, Json>).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .filter(([, spec]) => (spec as Json).security?.length !== 0)
      .map(([method, spec]) => ({
        method,
        template,
        spec: spec as Json,
        anyOf: ((spec as Json).security as Json[]).flatMap((one) => one.bearerAuth as string[]),
        // A POST that needs only a read scope (an attachment's signed link) writes nothing.
        write:
          method !== "get" &&
          !((spec as Json).security as Json[]).every((one) =>
            (one.bearerAuth as string[]).every((scope) => scope.endsWith(":read")),
          ),
      })),
  );
  concrete = [...new Set(operations.flatMap((operation) => operation.anyOf))].sort();
  company = await newCompany();
  const owner = suite.api.as(company.token);
  runner = new ExampleRunner(document, owner, owner);
  const stranger = suite.api.as((await newCompany()).token);
  other = new ExampleRunner(document, stranger, stranger);
  // One record of each collection made first, so requests in parallel share them.
  for (const collection of collectionsOf(document)) {
    await runner.recordOf(collection, false);
    await other.recordOf(collection, false);
  }
});

describe("scopes, from the served document", () => {
  test("every operation but listing tokens names its scope in its security requirement", () => {
    expect(operations.length).toBeGreaterThan(60);
    const unscoped = operations.filter((operation) => operation.anyOf.length === 0);
    expect(unscoped.map((operation) => `${operation.method} ${operation.template}`)).toEqual([
      "get /v1/tokens",
    ]);
    expect(concrete).toContain("workers:write");
    expect(concrete).toContain("tokens:write");
    // What a token may be given is exactly what operations need, the resources' sensitive scopes
    // (which guard fields, not operations), and the shorthands.
    expect([...document.components.schemas.TokenScope.enum].sort()).toEqual(
      [...concrete, ...RESOURCES.map(sensitiveScope), "read", "write", "sensitive", "*"].sort(),
    );
  });

  test("the reference page's document and the collection say each operation's scope", async () => {
    const create = document.paths["/v1/workers"].post;
    expect(create.description).toStartWith("**Scope:** `workers:write`.");
    expect(document.paths["/v1/tokens"].get.description).toStartWith("**Scope:** any token.");
    const collection = (await suite.api.get("/v1/collection.json", { token: null })).text;
    expect(collection).toContain("Needs the scope `workers:write`.");
    expect(collection).toContain("Needs the scope `equipment:write`.");
  });

  test("a token with exactly the operation's scope is let through, dry-runs of writes included", async () => {
    const results = await inParallel(operations, async (operation) => {
      const api = await holding([...operation.anyOf.slice(0, 1), ...alsoNeeded(operation)]);
      const dryRun = operation.write
        ? await runner.send(operation.method, operation.template, operation.spec, {
            api,
            headers: { "x-dry-run": "1" },
          })
        : undefined;
      const real = await runner.send(operation.method, operation.template, operation.spec, {
        api,
      });
      return [real, dryRun].flatMap((exchange) =>
        exchange && (exchange.status >= 300 || exchange.status < 200)
          ? [`${exchange.method} ${exchange.path} → ${exchange.status} ${exchange.text}`]
          : [],
      );
    });
    expect(results.flat()).toEqual([]);
  });

  test(
    "a token with every other scope is refused 403 insufficient_scope naming it; nothing is " +
      "written or metered as a dry-run",
    async () => {
      const owner = suite.api.as(company.token);
      const scoped = operations.filter((operation) => operation.anyOf.length > 0);
      for (const operation of scoped) await holding(allBut(operation));
      const before = await written(owner);
      const dryRunsBefore = await dryRunsMetered(owner);
      const responses = await inParallel(scoped, async (operation) => {
        const api = await holding(allBut(operation));
        return [
          [operation, await sendAs(api, operation)],
          ...(operation.write
            ? [[operation, await sendAs(api, operation, { "x-dry-run": "1" })]]
            : []),
        ] as [Operation, ApiResponse][];
      });
      for (const [operation, response] of responses.flat())
        expectInsufficientScope(operation, response);
      expect(await written(owner)).toEqual(before);
      expect(await dryRunsMetered(owner)).toBe(dryRunsBefore);
    },
  );

  test(
    "a read-only token writes nothing of any kind: creates, batches, upserts, webhooks, " +
      "tokens, dry-runs",
    async () => {
      const owner = suite.api.as(company.token);
      const readOnly = await holding(READ_ONLY);
      const before = await written(owner);
      const writes = operations.filter((operation) => operation.write);
      expect(writes.map((operation) => operation.template)).toContain("/v1/tokens");
      const statuses = await inParallel(writes, async (operation) =>
        Promise.all(
          [undefined, { "x-dry-run": "1" }].map(async (headers) => {
            const response = await sendAs(readOnly, operation, headers);
            return `${operation.method} ${operation.template} → ${response.status}`;
          }),
        ),
      );
      expect(statuses.flat().filter((line) => !line.endsWith("→ 403"))).toEqual([]);
      expect(await written(owner)).toEqual(before);
    },
  );

  test("another company's ids are 404 for every token, whatever its scopes", async () => {
    const withIds = operations.filter((operation) =>
      /\{(id|(?!external_id)[a-z_]+_id)\}/.test(operation.template),
    );
    expect(withIds.length).toBeGreaterThan(30);
    const everything = suite.api.as(company.token);
    const readOnly = await holding(READ_ONLY);
    const misses = await inParallel(withIds, async (operation) => {
      // The stranger's records, named in this company's requests.
      const path = await other.fill(operation.template, operation.spec, false);
      const body =
        operation.write && operation.method !== "delete"
          ? exampleBody(document, operation.spec)
          : undefined;
      const found: string[] = [];
      for (const api of [
        everything,
        readOnly,
        await holding(operation.anyOf.slice(0, 1)),
        await holding(allBut(operation)),
      ]) {
        const response = await api.request(operation.method.toUpperCase(), path, { body });
        if (response.status !== 404) found.push(`${operation.method} ${path} → ${response.status}`);
      }
      return found;
    });
    expect(misses.flat()).toEqual([]);
  });
});
