// Sensitive fields (docs/tokens.md): pay and tax data reach only tokens holding the resource's
// sensitive scope. A table generated from the definitions (every field marked `sensitive`) × every
// surface records leave by: a token without the scope never receives the value (its raw answer is
// searched for it), one with it does. Then the refusals (filters, ranges, sorts, writes: 403 naming
// the scope), `q`, the ETag rule, webhook deliveries with and without include_sensitive, the
// OpenAPI marks, and no escalation to `sensitive`.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  equalityFilters,
  expandables,
  rangeFields,
  sensitiveFieldNames,
  sortableFieldNames,
} from "@erp/server/fields";
import { ALL_DEFINITIONS, RESOURCES } from "@erp/server/registry";
import { sensitiveScope } from "@erp/server/scopes";
import type { Api } from "@erp/testing/api";
import { erpFor } from "@erp/testing/cli";
import { newCompany, newToken, type TestCompany } from "@erp/testing/company";
import { collectionsOf, ExampleRunner } from "@erp/testing/example-requests";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer({
  env: { WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_POLL_MS: "100", ERP_WEBHOOK_BACKOFF_MS: "300" },
});

type Json = Record<string, any>;
type Definition = (typeof RESOURCES)[number];

/** One sensitive field of one resource, the record holding it and the value it holds. */
interface Case {
  def: Definition;
  field: string;
  scope: string;
  id: number;
  /** A value found nowhere else in any answer. */
  value: string;
}

/** Every field a definition marks sensitive, with a value of its type that no other field holds. */
const CASES: Omit<Case, "id">[] = RESOURCES.flatMap((def, index) =>
  sensitiveFieldNames(def).map((field, position) => {
    const spec = def.fields[field]!;
    const value =
      spec.type === "money"
        ? `8${index}${position}71.39`
        : `SECRET-${def.name}-${field}`.slice(0, 30);
    return { def, field, scope: sensitiveScope(def), value };
  }),
);

/** What the narrow and the wide token hold besides `sensitive`. */
const BASE = ["write", "events:read", "webhooks:read", "webhooks:write", "tokens:write"];

let company: TestCompany;
let owner: Api;
let narrow: Api;
let wide: Api;
let narrowSecret: string;
let wideSecret: string;
let cases: Case[];

beforeAll(async () => {
  const document = (await suite.api.get("/v1/openapi.json", { token: null })).body;
  company = await newCompany();
  owner = suite.api.as(company.token);
  narrowSecret = await newToken(company.companyId, { name: "narrow", scopes: BASE });
  wideSecret = await newToken(company.companyId, {
    name: "wide",
    scopes: [...BASE, "sensitive"],
  });
  narrow = suite.api.as(narrowSecret);
  wide = suite.api.as(wideSecret);
  // A record of every collection, each referencing real records where its example does.
  const runner = new ExampleRunner(document, owner, owner);
  const names = new Set(ALL_DEFINITIONS.map((def) => def.name));
  for (const collection of collectionsOf(document))
    if (names.has(collection.split("/").at(-1)!)) await runner.recordOf(collection, false);
  cases = [];
  for (const one of CASES) {
    const id = await runner.recordOf(`/v1/${one.def.name}`, false);
    // An update that sets the value: the record, its event and its changes all carry it.
    const set = await owner.patch(`/v1/${one.def.name}/${id}`, { [one.field]: one.value });
    expect([one.field, set.status]).toEqual([one.field, 200]);
    cases.push({ ...one, id });
    // A record of each resource that references it, so that its expand embeds this very record.
    for (const [collection, , field] of expanding(one)) {
      const referrer = await runner.recordOf(collection, false);
      const pointed = await owner.patch(`${collection}/${referrer}`, { [field]: id });
      expect([collection, field, pointed.status]).toEqual([collection, field, 200]);
    }
  }
});

/** The records of other resources that embed a case's record with `expand`: [collection, path, field]. */
function expanding(one: Pick<Case, "def">): [string, string, string][] {
  return RESOURCES.flatMap((from) =>
    expandables(from)
      .filter((reference) => reference.target === one.def)
      .map((reference): [string, string, string] => [
        `/v1/${from.name}`,
        reference.name,
        reference.field,
      ]),
  );
}

/** Every surface a record leaves by, as the raw text a token receives: [surface, text]. */
async function surfaces(api: Api, secret: string, one: Case): Promise<[string, string][]> {
  const name = one.def.name;
  const texts: [string, string][] = [];
  const get = async (surface: string, path: string) => {
    const answer = await api.get(path);
    expect([surface, answer.status]).toEqual([surface, 200]);
    texts.push([surface, answer.text]);
  };
  await get("GET one", `/v1/${name}/${one.id}`);
  await get("list", `/v1/${name}?limit=100`);
  await get("fields", `/v1/${name}/${one.id}?fields=name,${one.field}`);
  await get("list fields", `/v1/${name}?limit=100&fields=${one.field}`);
  for (const [collection, path] of expanding(one))
    await get(`expand ${collection}?expand=${path}`, `${collection}?limit=100&expand=${path}`);
  await get("feed", `/v1/events?resource=${name}&limit=100`);
  await get("history", `/v1/${name}/${one.id}/events`);
  const exported = await erpFor(suite.server.baseUrl, secret)(["export", name]);
  expect(exported.code).toBe(0);
  texts.push(["export", exported.stdout]);
  const csv = await erpFor(suite.server.baseUrl, secret)(["export", name, "--format", "csv"]);
  texts.push(["export csv", csv.stdout]);
  const patched = await api.patch(
    `/v1/${name}/${one.id}`,
    { name: `Renamed ${crypto.randomUUID()}` },
    { headers: { prefer: "return=representation" } },
  );
  expect(patched.status).toBe(200);
  texts.push(["PATCH answer", patched.text]);
  const batch = await api.post(`/v1/${name}/batch`, {
    operation: "update",
    items: [{ id: one.id, name: `Batch ${crypto.randomUUID()}` }],
  });
  expect(batch.status).toBe(200);
  texts.push(["batch answer", batch.text]);
  const created = await api.post(
    `/v1/${name}`,
    { name: `Created ${crypto.randomUUID()}` },
    { headers: { prefer: "return=representation" } },
  );
  texts.push(["create answer", created.text]);
  return texts;
}

describe("every sensitive field × every surface, from the definitions", () => {
  test("the table covers every field marked sensitive, and an expand of some", () => {
    expect(cases.map((one) => `${one.def.name}.${one.field}`).sort()).toEqual([
      "clients.tax_id",
      "subcontractors.tax_id",
      "workers.hourly_rate",
    ]);
    expect(cases.some((one) => expanding(one).length > 0)).toBe(true);
  });

  test("a token without the sensitive scope never receives the value; one with it does", async () => {
    const leaks: string[] = [];
    const missing: string[] = [];
    for (const one of cases) {
      for (const [surface, text] of await surfaces(narrow, narrowSecret, one))
        if (text.includes(one.value)) leaks.push(`${one.def.name}.${one.field}: ${surface}`);
      for (const [surface, text] of await surfaces(wide, wideSecret, one))
        if (!text.includes(one.value) && !/create|batch/.test(surface))
          missing.push(`${one.def.name}.${one.field}: ${surface}`);
    }
    expect(leaks).toEqual([]);
    expect(missing).toEqual([]);
  });

  test("a token holding only the resource's own sensitive scope sees it, and no other's", async () => {
    for (const one of cases) {
      const own = suite.api.as(
        await newToken(company.companyId, { name: one.scope, scopes: ["read", one.scope] }),
      );
      expect((await own.get(`/v1/${one.def.name}/${one.id}`)).text).toContain(one.value);
      for (const other of cases.filter((c) => c.scope !== one.scope))
        expect((await own.get(`/v1/${other.def.name}/${other.id}`)).text).not.toContain(
          other.value,
        );
    }
  });
});

/** 403 insufficient_scope naming `scope`. */
function refused(answer: { status: number; body: any; headers: Headers }, scope: string) {
  expect([answer.status, answer.body?.code]).toEqual([403, "insufficient_scope"]);
  expect(answer.headers.get("www-authenticate")).toContain(`scope="${scope}"`);
  expect(answer.body.detail).toContain(scope);
}

describe("what a token without the scope may not do with a sensitive field", () => {
  test("a filter, a range or a sort on it is 403 naming the scope; with the scope it is answered", async () => {
    let checked = 0;
    for (const one of cases) {
      const name = one.def.name;
      const queries: string[] = [];
      if (equalityFilters(one.def).some(([filter]) => filter === one.field))
        queries.push(`${one.field}=${encodeURIComponent(one.value)}`);
      if (rangeFields(one.def).some(([range]) => range === one.field))
        queries.push(`${one.field}[gte]=1`);
      if (sortableFieldNames(one.def).includes(one.field))
        queries.push(`sort=-${one.field}`, `sort=name,${one.field}`);
      for (const query of queries) {
        refused(await narrow.get(`/v1/${name}?${query}`), one.scope);
        const answered = await wide.get(`/v1/${name}?${query}`);
        expect([query, answered.status]).toEqual([query, 200]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(cases.length * 2);
  });

  test("a create, a PATCH, an upsert or a batch that sets it is 403 naming the scope and changes nothing", async () => {
    for (const one of cases) {
      const name = one.def.name;
      const before = (await wide.get(`/v1/${name}/${one.id}`)).body.data;
      const body = { name: "Not written", [one.field]: one.value };
      refused(await narrow.post(`/v1/${name}`, body), one.scope);
      refused(await narrow.patch(`/v1/${name}/${one.id}`, body), one.scope);
      refused(await narrow.patch(`/v1/${name}/${one.id}`, { [one.field]: null }), one.scope);
      refused(
        await narrow.post(`/v1/${name}/batch`, {
          operation: "update",
          items: [
            { id: one.id, name: "Not written" },
            { id: one.id, [one.field]: one.value },
          ],
        }),
        one.scope,
      );
      refused(
        await narrow.request("PUT", `/v1/${name}/by-external-id/sensitive-${name}`, { body }),
        one.scope,
      );
      expect((await wide.get(`/v1/${name}/${one.id}`)).body.data).toEqual(before);
      const allowed = await wide.patch(`/v1/${name}/${one.id}`, { [one.field]: one.value });
      expect(allowed.status).toBe(200);
    }
  });

  test("q never matches a hidden field: a client's tax_id is found only with clients:sensitive", async () => {
    const client = cases.find((one) => one.def.name === "clients")!;
    const query = `/v1/clients?q=${encodeURIComponent(client.value)}`;
    expect((await narrow.get(query)).body.data).toEqual([]);
    expect((await wide.get(query)).body.data.map((record: Json) => record.id)).toEqual([client.id]);
    // The fields it may see are still searched.
    const named = (await wide.get(`/v1/clients/${client.id}`)).body.data.name as string;
    const byName = await narrow.get(`/v1/clients?q=${encodeURIComponent(named)}`);
    expect(byName.body.data.map((record: Json) => record.id)).toContain(client.id);
  });
});

describe("a keyed write's stored answer", () => {
  test("is replayed only to a token that sees what it shows: another one's retry is 409 idempotency_key_reuse", async () => {
    const worker = cases.find((one) => one.def.name === "workers")!;
    const path = `/v1/workers/${worker.id}`;
    const key = `sensitive-replay-${crypto.randomUUID()}`;
    const keyed = (api: Api) =>
      api.patch(
        path,
        { name: "Renamed with a key" },
        { headers: { "idempotency-key": key, prefer: "return=representation" } },
      );
    const first = await keyed(wide);
    expect(first.status).toBe(200);
    expect(first.text).toContain(worker.value);
    const replayed = await keyed(wide);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    const other = await keyed(narrow);
    expect([other.status, other.body.code]).toEqual([409, "idempotency_key_reuse"]);
    expect(other.text).not.toContain(worker.value);
    // A narrow token's own key replays to it as before, without the rate.
    const own = `sensitive-own-${crypto.randomUUID()}`;
    const narrowKeyed = () =>
      narrow.patch(
        path,
        { name: "Renamed by the narrow token" },
        { headers: { "idempotency-key": own, prefer: "return=representation" } },
      );
    expect((await narrowKeyed()).status).toBe(200);
    const again = await narrowKeyed();
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(again.text).not.toContain(worker.value);
  });
});

describe("the ETag is that of the body the caller sees", () => {
  test("a change to a hidden field leaves a 304 a 304; a visible change does not; If-Match still holds", async () => {
    const worker = cases.find((one) => one.def.name === "workers")!;
    const path = `/v1/workers/${worker.id}`;
    const seen = await narrow.get(path);
    const tag = seen.headers.get("etag")!;
    const wideTag = (await wide.get(path)).headers.get("etag")!;
    const list = (await narrow.get("/v1/workers?limit=100")).headers.get("etag")!;
    expect((await owner.patch(path, { hourly_rate: "12345.67" })).body.data.updated).toBe(true);
    const again = await narrow.get(path, { headers: { "if-none-match": tag } });
    expect(again.status).toBe(304);
    const listAgain = await narrow.get("/v1/workers?limit=100", {
      headers: { "if-none-match": list },
    });
    expect(listAgain.status).toBe(304);
    // The token that sees the rate sees the change.
    expect((await wide.get(path, { headers: { "if-none-match": wideTag } })).status).toBe(200);
    // The tag a narrow GET sent still names the record for its If-Match.
    const renamed = await narrow.patch(
      path,
      { name: "Renamed under If-Match" },
      {
        headers: { "if-match": tag },
      },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("etag")).toBe((await narrow.get(path)).headers.get("etag"));
    expect((await narrow.get(path, { headers: { "if-none-match": tag } })).status).toBe(200);
    const stale = await narrow.patch(path, { name: "Stale" }, { headers: { "if-match": tag } });
    expect(stale.status).toBe(412);
  });
});

describe("webhooks deliver sensitive fields only when set to include them", () => {
  test("include_sensitive: set only by a token holding sensitive; deliveries with and without it", async () => {
    const received: { path: string; text: string; event: Json }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const text = await request.text();
        received.push({ path: new URL(request.url).pathname, text, event: JSON.parse(text) });
        return new Response("ok");
      },
    });
    try {
      const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
      const refusedSet = await narrow.post("/v1/webhook-endpoints", {
        url: url("/refused"),
        events: ["*"],
        include_sensitive: true,
      });
      refused(refusedSet, "sensitive");
      const plain = await wide.post("/v1/webhook-endpoints", { url: url("/plain"), events: ["*"] });
      expect(plain.body.data.include_sensitive).toBe(false);
      const included = await wide.post("/v1/webhook-endpoints", {
        url: url("/included"),
        events: ["*"],
        include_sensitive: true,
      });
      expect([included.status, included.body.data.include_sensitive]).toEqual([201, true]);
      const fromNarrow = await narrow.post("/v1/webhook-endpoints", {
        url: url("/narrow"),
        events: ["*"],
      });
      expect(fromNarrow.status).toBe(201);
      // Changed by a token without `sensitive`: it delivers what that token sees from then on.
      const changed = await wide.post("/v1/webhook-endpoints", {
        url: url("/changed"),
        events: ["*"],
        include_sensitive: true,
      });
      const patched = await narrow.patch(`/v1/webhook-endpoints/${changed.body.data.id}`, {
        description: "changed by a token without sensitive",
      });
      expect(patched.body.data.include_sensitive).toBe(false);
      refused(
        await narrow.patch(`/v1/webhook-endpoints/${changed.body.data.id}`, {
          include_sensitive: true,
        }),
        "sensitive",
      );

      for (const one of cases)
        await owner.patch(`/v1/${one.def.name}/${one.id}`, {
          [one.field]: one.value,
          name: `Delivered ${crypto.randomUUID()}`,
        });
      const paths = ["/plain", "/included", "/narrow", "/changed"];
      const arrived = (path: string) =>
        cases.every((one) =>
          received.some(
            (got) =>
              got.path === path &&
              got.event.resource === one.def.name &&
              got.event.data?.record?.id === one.id &&
              got.event.type.endsWith(".updated"),
          ),
        );
      for (const deadline = Date.now() + 20_000; !paths.every(arrived); )
        if (Date.now() > deadline) throw new Error("the updates did not reach every endpoint");
        else await Bun.sleep(100);
      for (const one of cases)
        for (const path of paths) {
          const texts = received.filter((got) => got.path === path).map((got) => got.text);
          const carries = texts.some((text) => text.includes(one.value));
          expect([one.def.name, path, carries]).toEqual([one.def.name, path, path === "/included"]);
        }
      expect(received.some((got) => got.path === "/refused")).toBe(false);
    } finally {
      receiver.stop(true);
    }
  });
});

describe("erp webhooks create --include-sensitive", () => {
  test("made by a token holding sensitive; refused, naming the scope, for one without it", async () => {
    const args = ["webhooks", "create", "http://127.0.0.1:9/cli", "--include-sensitive"];
    const made = await erpFor(suite.server.baseUrl, wideSecret)([...args, "--output", "json"]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).include_sensitive).toBe(true);
    const refusedCli = await erpFor(suite.server.baseUrl, narrowSecret)(args);
    expect(refusedCli.code).not.toBe(0);
    expect(refusedCli.stdout).toBe("");
    expect(refusedCli.stderr).toContain("sensitive");
  });
});

describe("tokens: the scopes, and no escalation", () => {
  test("a token without sensitive cannot make one with it, or with a resource's sensitive scope", async () => {
    for (const scopes of [["sensitive"], ["workers:sensitive"], ["*"]]) {
      const made = await narrow.post("/v1/tokens", { name: "escalation", scopes });
      expect([scopes, made.status, made.body.code]).toEqual([scopes, 403, "insufficient_scope"]);
    }
    const own = suite.api.as(
      await newToken(company.companyId, {
        name: "workers sensitive",
        scopes: ["tokens:write", "workers:sensitive"],
      }),
    );
    refused(
      await own.post("/v1/tokens", { name: "all", scopes: ["sensitive"] }),
      "projects:sensitive",
    );
    const made = await wide.post("/v1/tokens", { name: "payroll", scopes: ["workers:sensitive"] });
    expect(made.status).toBe(201);
    expect(made.body.data.scopes).toEqual(["workers:sensitive"]);
  });

  test("the OpenAPI document marks each sensitive field with x-sensitive and its scope", async () => {
    const document = (await suite.api.get("/v1/openapi.json", { token: null })).body;
    const schemas = document.components.schemas as Record<string, Json>;
    for (const one of cases) {
      for (const title of [
        one.def.singular,
        `${one.def.singular}Create`,
        `${one.def.singular}Update`,
      ]) {
        const property = schemas[title]!.properties[one.field];
        expect([title, property["x-sensitive"]]).toEqual([title, true]);
        expect(property.description).toContain(one.scope);
      }
      expect(schemas[one.def.singular]!.required ?? []).not.toContain(one.field);
    }
    const marked = Object.values(schemas).flatMap((schema) =>
      Object.entries((schema.properties ?? {}) as Record<string, Json>)
        .filter(([, property]) => property["x-sensitive"] === true)
        .map(([name]) => name),
    );
    expect(new Set(marked)).toEqual(new Set(cases.map((one) => one.field)));
  });
});
