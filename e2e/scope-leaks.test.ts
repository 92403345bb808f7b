// No way around a scope (docs/tokens.md): what a token may not read does not leave the API any
// other way. A matrix generated from the served OpenAPI document (every `expand` path of every
// list and GET) and the resources' references (the registry): each path with a token lacking the
// read scope of one resource it embeds is 403 naming that scope, and with every scope it embeds
// is answered. Then a narrow token (the workers alone) follows the feed, a history, an export and
// a webhook endpoint of a company with records of every resource, and sees the workers' only.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { expandables } from "@erp/server/fields";
import { ALL_DEFINITIONS, definitionNamed, LOOKUPS } from "@erp/server/registry";
import { ErpClient } from "../sdk/mod.ts";
import type { Api, ApiResponse } from "@erp/testing/api";
import { erpFor, ndjson } from "@erp/testing/cli";
import { newCompany, newToken, type TestCompany } from "@erp/testing/company";
import { collectionsOf, ExampleRunner } from "@erp/testing/example-requests";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer({
  env: { WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_POLL_MS: "100", ERP_WEBHOOK_BACKOFF_MS: "300" },
});

type Json = Record<string, any>;
type Definition = ReturnType<typeof definitionNamed>;

let document: Json;
let company: TestCompany;
let owner: Api;
let runner: ExampleRunner;
const tokens = new Map<string, Api>();

/** An Api with a token of the company holding exactly `scopes` (one token per set). */
async function holding(scopes: readonly string[]): Promise<Api> {
  const key = [...new Set(scopes)].sort().join(" ");
  let api = tokens.get(key);
  if (!api) {
    api = suite.api.as(
      await newToken(company.companyId, { name: key.slice(0, 100), scopes: key.split(" ") }),
    );
    tokens.set(key, api);
  }
  return api;
}

/** The scopes an operation's security requirement accepts, any one of them. */
const accepted = (operation: Json): string[] =>
  (operation.security as Json[]).flatMap((requirement) => requirement.bearerAuth as string[]);

/** The read scopes of a resource: those its own list accepts, as the document says. */
const readScopesOf = (def: Definition): string[] => accepted(document.paths[`/v1/${def.name}`].get);

/** The resource a path's records are: its last segment that is not a parameter. */
const resourceOf = (template: string): Definition =>
  definitionNamed(
    template
      .split("/")
      .filter((segment) => segment && !segment.startsWith("{"))
      .at(-1)!,
  );

/** The resources an expand path embeds, in order: `project.client` on rentals → projects, clients. */
function embeddedBy(def: Definition, path: string): Definition[] {
  const embedded: Definition[] = [];
  let from = def;
  for (const name of path.split(".")) {
    from = expandables(from).find((reference) => reference.name === name)!.target;
    embedded.push(from);
  }
  return embedded;
}

interface ExpandCase {
  method: string;
  template: string;
  operation: Json;
  path: string;
  /** The operation's own scope, then the first read scope of each embedded resource. */
  own: string;
  embedded: { def: Definition; scopes: string[] }[];
}

/** Every expand path of every documented operation that takes one. */
function expandCases(): ExpandCase[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([template, item]) => {
    const operation = item.get as Json | undefined;
    const expand = (operation?.parameters as Json[] | undefined)?.find(
      (parameter) => parameter.name === "expand",
    );
    if (!operation || !expand) return [];
    const def = resourceOf(template);
    return (expand.schema.items.enum as string[]).map((path) => ({
      method: "get",
      template,
      operation,
      path,
      own: accepted(operation)[0]!,
      embedded: embeddedBy(def, path).map((target) => ({
        def: target,
        scopes: readScopesOf(target),
      })),
    }));
  });
}

const call = (response: ApiResponse, what: string) =>
  `${what} → ${response.status} ${response.text.slice(0, 160)}`;

beforeAll(async () => {
  document = (await suite.api.get("/v1/openapi.json", { token: null })).body;
  company = await newCompany();
  owner = suite.api.as(company.token);
  runner = new ExampleRunner(document, owner, owner);
  // A record of every resource's collection, each referencing real records where its example does.
  const names = new Set(ALL_DEFINITIONS.map((def) => def.name));
  for (const collection of collectionsOf(document))
    if (names.has(collection.split("/").at(-1)!)) await runner.recordOf(collection, false);
});

describe("expand, from the served document and the resources' references", () => {
  test("the matrix covers every expandable reference, nested ones included", () => {
    const cases = expandCases();
    expect(cases.some((one) => one.path === "client")).toBe(true);
    expect(cases.some((one) => one.path.includes("."))).toBe(true);
    expect(cases.some((one) => one.template.includes("{id}/rentals"))).toBe(true);
  });

  test("every expand path with a token lacking one embedded resource's read scope is 403 naming it; with them all it is answered", async () => {
    const failures: string[] = [];
    let refusals = 0;
    for (const one of expandCases()) {
      const path = `${await runner.fill(one.template, one.operation, false)}?expand=${one.path}`;
      const everything = [one.own, ...one.embedded.map((embedded) => embedded.scopes[0]!)];
      const answered = await (await holding(everything)).get(path);
      if (answered.status !== 200) failures.push(call(answered, `all scopes: ${path}`));
      const first = one.path.split(".")[0]!;
      const records = Array.isArray(answered.body?.data)
        ? answered.body.data
        : [answered.body?.data];
      if (answered.status === 200 && !records.every((record: Json) => first in record))
        failures.push(`all scopes: ${path} embeds no ${first}`);
      for (const [index, lacking] of one.embedded.entries()) {
        const held = everything.filter((_, position) => position !== index + 1);
        // A lookup is read with any read scope: the operation's own scope already grants it.
        if (held.some((scope) => lacking.scopes.includes(scope))) continue;
        const refused = await (await holding(held)).get(path);
        refusals += 1;
        const challenge = refused.headers.get("www-authenticate") ?? "";
        const scope = lacking.scopes.join(" ");
        if (
          refused.status !== 403 ||
          refused.body.code !== "insufficient_scope" ||
          !challenge.includes(`scope="${scope}"`) ||
          !refused.body.detail.includes(lacking.scopes[0]!)
        )
          failures.push(call(refused, `without ${scope} (holding ${held.join(" ")}): ${path}`));
      }
    }
    expect(failures).toEqual([]);
    expect(refusals).toBeGreaterThan(10);
  });

  test("another company's record is still 404 before the expand is refused", async () => {
    const stranger = suite.api.as((await newCompany()).token);
    const theirs = new ExampleRunner(document, stranger, stranger);
    const project = await theirs.recordOf("/v1/projects", false);
    const narrow = await holding(["projects:read"]);
    expect((await narrow.get(`/v1/projects/${project}?expand=client`)).status).toBe(404);
    const mine = await runner.recordOf("/v1/projects", false);
    expect((await narrow.get(`/v1/projects/${mine}?expand=client`)).status).toBe(403);
  });
});

describe("a narrow token (the workers alone) sees only the workers' records", () => {
  const NARROW = ["events:read", "workers:read", "webhooks:read", "webhooks:write"];
  let narrow: Api;
  let secret: string;
  let workerId: number;

  beforeAll(async () => {
    secret = await newToken(company.companyId, { name: "workers only", scopes: NARROW });
    narrow = suite.api.as(secret);
    workerId = await runner.recordOf("/v1/workers", false);
    const renamed = await owner.patch(`/v1/workers/${workerId}`, { name: "Renamed by the owner" });
    expect(renamed.body.data.updated).toBe(true);
  });

  /** Every event the feed shows `api`, page after page. */
  async function wholeFeed(api: Api, query = ""): Promise<Json[]> {
    const events: Json[] = [];
    let after = "";
    for (;;) {
      const page = await api.get(`/v1/events?limit=100${query}${after}`);
      expect(page.status).toBe(200);
      events.push(...page.body.data);
      if (page.body.data.length < 100) return events;
      after = `&after=${page.body.meta.next_cursor}`;
    }
  }

  test("the feed: only the workers' events; a filter naming another resource is 403 naming its scope", async () => {
    const all = await wholeFeed(owner);
    expect(new Set(all.map((event) => event.resource)).size).toBeGreaterThan(3);
    const seen = await wholeFeed(narrow);
    expect(seen.length).toBeGreaterThan(0);
    // The lookups every resource names are read with any read scope, so their events show too.
    const readable = new Set(["workers", ...LOOKUPS.map((def) => def.name)]);
    expect(seen.map((event) => event.id)).toEqual(
      all.filter((event) => readable.has(event.resource)).map((event) => event.id),
    );
    for (const [query, scope] of [
      ["&resource=clients", "clients:read"],
      ["&type=project.created", "projects:read"],
      ["&type=rental.*", "equipment:read"],
    ] as const) {
      const refused = await narrow.get(`/v1/events?${query.slice(1)}`);
      expect([query, refused.status, refused.body.code]).toEqual([
        query,
        403,
        "insufficient_scope",
      ]);
      expect(refused.headers.get("www-authenticate")).toContain(`scope="${scope}"`);
    }
    expect((await narrow.get("/v1/events?resource=workers")).status).toBe(200);
  });

  test("a long-poll is not answered by another resource's event, and then carries only the worker's", async () => {
    const latest = (await narrow.get("/v1/events?after=latest")).body.meta.next_cursor;
    const waiting = narrow.get(`/v1/events?after=${latest}&wait=10`);
    await Bun.sleep(300);
    await owner.post("/v1/clients", { name: "Not for the narrow token" });
    await Bun.sleep(500);
    await owner.post("/v1/workers", { name: "Ada Narrow" });
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body.data.map((event: Json) => event.type)).toEqual(["worker.created"]);
  });

  test("a history: the worker's own; another resource's history is 403", async () => {
    const history = await narrow.get(`/v1/workers/${workerId}/events`);
    expect(history.status).toBe(200);
    expect(history.body.data.map((event: Json) => event.type)).toEqual([
      "worker.created",
      "worker.updated",
    ]);
    const client = await runner.recordOf("/v1/clients", false);
    const refused = await narrow.get(`/v1/clients/${client}/events`);
    expect([refused.status, refused.body.code]).toEqual([403, "insufficient_scope"]);
  });

  test("an export (list pages, by the SDK and the CLI): the workers; another resource's is refused", async () => {
    const sdk = new ErpClient({ baseUrl: suite.server.baseUrl, token: secret });
    const exported: Json[] = [];
    for await (const worker of sdk.workers.list({ limit: 2 })) exported.push(worker);
    const listed = (await owner.get("/v1/workers?limit=100")).body.data as Json[];
    expect(exported.map((worker) => worker.id)).toEqual(listed.map((worker) => worker.id));
    const cli = erpFor(suite.server.baseUrl, secret);
    const workers = await cli(["export", "workers"]);
    expect(workers.code).toBe(0);
    expect(ndjson(workers.stdout).map((worker) => worker.id)).toEqual(exported.map((w) => w.id));
    const clients = await cli(["export", "clients"]);
    expect(clients.code).not.toBe(0);
    expect(clients.stdout).toBe("");
    expect(clients.stderr).toContain("clients:read");
    const expanded = await narrow.get("/v1/projects?expand=client");
    expect(expanded.status).toBe(403);
  });

  test("a webhook endpoint made, or changed last, by the narrow token delivers only the workers' events", async () => {
    const received: { path: string; event: Json }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        received.push({ path: new URL(request.url).pathname, event: await request.json() });
        return new Response("ok");
      },
    });
    try {
      const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
      const start = new Date().toISOString();
      const mine = await narrow.post("/v1/webhook-endpoints", {
        url: url("/narrow"),
        events: ["*"],
      });
      expect(mine.status).toBe(201);
      const wide = await owner.post("/v1/webhook-endpoints", { url: url("/wide"), events: ["*"] });
      const narrowed = await owner.post("/v1/webhook-endpoints", {
        url: url("/narrowed"),
        events: ["*"],
      });
      // Changed by the narrow token: from then on it delivers what that token reads.
      const patched = await narrow.patch(`/v1/webhook-endpoints/${narrowed.body.data.id}`, {
        description: "changed by a workers-only token",
      });
      expect(patched.status).toBe(200);
      const subscribed = await narrow.post("/v1/webhook-endpoints", {
        url: url("/clients"),
        events: ["client.*"],
      });
      expect([subscribed.status, subscribed.body.code]).toEqual([403, "insufficient_scope"]);
      expect(subscribed.headers.get("www-authenticate")).toContain('scope="clients:read"');

      const client = await owner.post("/v1/clients", { name: "Delivered to the wide one only" });
      await owner.post("/v1/projects", { name: "Also wide only", client_id: client.body.data.id });
      await owner.post("/v1/workers", { name: "Grace Everywhere" });
      const lastWorker = await owner.post("/v1/workers", { name: "Last One" });
      const lastId = lastWorker.body.data.id as number;
      const arrived = (path: string) =>
        received.some((one) => one.path === path && one.event.data?.record?.id === lastId);
      for (
        const deadline = Date.now() + 20_000;
        !["/narrow", "/wide", "/narrowed"].every(arrived);
      )
        if (Date.now() > deadline)
          throw new Error("the last worker's event did not reach all three");
        else await Bun.sleep(100);
      const resources = (path: string) =>
        new Set(received.filter((one) => one.path === path).map((one) => one.event.resource));
      expect(resources("/wide")).toEqual(new Set(["clients", "projects", "workers"]));
      expect(resources("/narrow")).toEqual(new Set(["workers"]));
      expect(resources("/narrowed")).toEqual(new Set(["workers"]));

      // A replay queues only what the endpoint delivers.
      const replay = await narrow.post(
        `/v1/webhook-endpoints/${mine.body.data.id}/replay`,
        { since: start },
        { headers: { "x-dry-run": "1" } },
      );
      const ownerFeed = await wholeFeed(owner);
      const workersSince = ownerFeed.filter(
        (event) => event.resource === "workers" && event.created_at >= start,
      );
      expect(replay.body.data.queued).toBe(workersSince.length);
      const wideReplay = await owner.post(
        `/v1/webhook-endpoints/${wide.body.data.id}/replay`,
        { since: start },
        { headers: { "x-dry-run": "1" } },
      );
      expect(wideReplay.body.data.queued).toBeGreaterThan(workersSince.length);
    } finally {
      receiver.stop(true);
    }
  });
});
