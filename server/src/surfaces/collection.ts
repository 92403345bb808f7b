// GET /v1/collection.json: an API-client collection (format 2.1) built from the registry and the
// live OpenAPI document. Each resource folder creates a record, reads, updates, dry-run deletes
// and deletes it, chaining the id through collection variables, so a runner given only
// `baseUrl` and `token` passes every request.
import { publicOrigin } from "../http/origin.ts";
import { Type } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import { reportFields, reportVocabulary } from "../resources/aggregates.ts";
import { withArticle } from "../resources/naming.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { createExample, updateExample } from "../resources/examples.ts";
import { LOOKUPS, RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { pathsOf } from "../routes/route-context.ts";
import { openApiDocument } from "./openapi-document.ts";
import { open, specificationRoute } from "./specification-route.ts";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document built and walked freely
type Json = Record<string, any>;

const SCHEMA_URL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
const JSON_HEADER = { key: "Content-Type", value: "application/json" };

interface RequestSpec {
  name: string;
  method: string;
  /** Path with `{{variable}}` placeholders, e.g. /v1/projects/{{projects_id}}. */
  path: string;
  body?: string;
  headers?: { key: string; value: string }[];
  query?: { key: string; value: string }[];
  tests: string[];
  public?: boolean;
  description?: string;
  /** The folder's skip flag: once its add-on or quota refused a request, the rest of it passes as skipped. */
  guard?: { flag: string; prerequisite: string; reset?: boolean };
}

/**
 * Wraps a request's tests so a company without the folder's add-on (402 feature_off) or without a
 * free quota slot (402 quota_exceeded) reports the rest of the folder as skipped instead of failing,
 * and an unexpected body never throws in the script.
 */
function guardedTests(spec: RequestSpec): string[] {
  if (!spec.guard) return spec.tests;
  const { flag, prerequisite } = spec.guard;
  return [
    "var refusal = {}; try { refusal = pm.response.json() || {}; } catch (e) { refusal = {}; }",
    `if (pm.response.code === 402 && (refusal.code === "feature_off" || refusal.code === ` +
      `"quota_exceeded")) pm.collectionVariables.set("${flag}", refusal.code);`,
    `if (pm.collectionVariables.get("${flag}")) {`,
    `  pm.test("skipped (" + pm.collectionVariables.get("${flag}") + "): ` +
      `${prerequisite.replaceAll('"', '\\"')}", function () {});`,
    "} else {",
    ...spec.tests.map((line) => `  ${line}`),
    "}",
  ];
}

function item(spec: RequestSpec): Json {
  const query = spec.query ?? [];
  const raw = `{{baseUrl}}${spec.path}${query.length ? `?${query.map((q) => `${q.key}=${q.value}`).join("&")}` : ""}`;
  const built = {
    name: spec.name,
    event: [
      ...(spec.guard?.reset
        ? [
            {
              listen: "prerequest",
              script: {
                type: "text/javascript",
                exec: [`pm.collectionVariables.unset("${spec.guard.flag}");`],
              },
            },
          ]
        : []),
      { listen: "test", script: { type: "text/javascript", exec: guardedTests(spec) } },
    ],
    request: {
      method: spec.method,
      ...(spec.public ? { auth: { type: "noauth" } } : {}),
      header: [...(spec.body ? [JSON_HEADER] : []), ...(spec.headers ?? [])],
      ...(spec.body
        ? { body: { mode: "raw", raw: spec.body, options: { raw: { language: "json" } } } }
        : {}),
      url: {
        raw,
        host: ["{{baseUrl}}"],
        path: spec.path.split("/").filter(Boolean),
        ...(query.length ? { query } : {}),
      },
      ...(spec.description ? { description: spec.description } : {}),
    },
  };
  // Kept (not serialised) so a folder can wrap the item's tests in its guard.
  return Object.defineProperty(built, "spec", { value: spec, enumerable: false });
}

const expectStatus = (status: number): string =>
  `pm.test("status is ${status}", function () { pm.response.to.have.status(${status}); });`;

/** A JSON body whose `"{{var}}"` strings become bare `{{var}}`, so numbers stay numbers once substituted. */
function bodyText(body: Record<string, unknown>): string {
  return JSON.stringify(body, null, 2).replace(/"\{\{([A-Za-z0-9_]+)\}\}"/g, "{{$1}}");
}

/** The example create body, with required references pointing at records made earlier. */
function createBody(
  def: ResourceDefinition,
  refVariable: (field: string) => string,
): Record<string, unknown> {
  const body = createExample(def);
  for (const [field, spec] of Object.entries(def.fields)) {
    if (spec.type === "ref" && field in body) body[field] = `{{${refVariable(field)}}}`;
  }
  return body;
}

/** Requests that make a record to stand on (a parent, a required reference) and remove it after. */
function supportingRecord(
  def: ResourceDefinition,
  variable: string,
): { create: Json; remove: Json } {
  return {
    create: item({
      name: `Create ${withArticle(def.singular.toLowerCase())} to work with`,
      method: "POST",
      path: `/v1/${def.name}`,
      body: bodyText(createBody(def, () => "")),
      tests: [
        expectStatus(201),
        `pm.collectionVariables.set("${variable}", pm.response.json().data.id);`,
      ],
    }),
    remove: item({
      name: `Delete that ${def.singular.toLowerCase()}`,
      method: "DELETE",
      path: `/v1/${def.name}/{{${variable}}}`,
      tests: [
        expectStatus(200),
        `pm.test("deleted", function () { pm.expect(pm.response.json().data.deleted).to.eql(true); });`,
      ],
    }),
  };
}

/** The names a resource's folder chains its requests through. */
interface FolderPaths {
  /** The resource's name as a variable prefix: `equipment_categories`. */
  prefix: string;
  /** The variable holding the id of the record the folder made. */
  idVariable: string;
  /** The collection's path, a sub-collection's under the member its folder made first. */
  collection: string;
  member: string;
  /** The singular in lower case: `worker`. */
  what: string;
}

function folderPaths(def: ResourceDefinition): FolderPaths {
  const prefix = def.name.replace(/-/g, "_");
  const idVariable = `${prefix}_id`;
  const parent = def.parent?.resource;
  const collection = parent
    ? `/v1/${parent.name}/{{${prefix}_${parent.name}_id}}/${def.name}`
    : `/v1/${def.name}`;
  return {
    prefix,
    idVariable,
    collection,
    member: `${collection}/{{${idVariable}}}`,
    what: def.singular.toLowerCase(),
  };
}

/** The records a folder makes first and removes last: the parent, then each required reference. */
function supportingRecords(
  def: ResourceDefinition,
  prefix: string,
): { before: Json[]; after: Json[] } {
  const before: Json[] = [];
  const after: Json[] = [];
  const support = (target: ResourceDefinition, variable: string) => {
    const { create, remove } = supportingRecord(target, variable);
    before.push(create);
    after.unshift(remove);
  };
  if (def.parent) support(def.parent.resource, `${prefix}_${def.parent.resource.name}_id`);
  for (const [field, spec] of Object.entries(def.fields)) {
    if (spec.type === "ref" && def.required.includes(field))
      support(spec.target, `${prefix}_${field}`);
  }
  return { before, after };
}

function createSteps(def: ResourceDefinition, paths: FolderPaths): Json[] {
  return [
    item({
      name: `Create ${withArticle(paths.what)}`,
      method: "POST",
      path: paths.collection,
      body: bodyText(createBody(def, (field) => `${paths.prefix}_${field}`)),
      headers: [{ key: "Idempotency-Key", value: "{{$guid}}" }],
      tests: [
        expectStatus(201),
        `pm.test("created", function () { ` +
          `pm.expect(pm.response.json().data.created).to.eql(true); ` +
          `pm.response.to.have.header("Location"); });`,
        `pm.collectionVariables.set("${paths.idVariable}", pm.response.json().data.id);`,
      ],
    }),
  ];
}

function listSteps(def: ResourceDefinition, paths: FolderPaths): Json[] {
  return [
    item({
      name: `List ${def.name}`,
      method: "GET",
      path: paths.collection,
      query: [{ key: "limit", value: "10" }],
      tests: [
        expectStatus(200),
        `pm.test("a page with meta.total", function () { const body = pm.response.json(); ` +
          `pm.expect(body.data).to.be.an("array"); ` +
          `pm.expect(body.meta.total).to.be.at.least(1); });`,
      ],
    }),
    item({
      name: `List ${def.name} by after_id, without the total`,
      method: "GET",
      path: paths.collection,
      query: [
        { key: "after_id", value: "0" },
        { key: "limit", value: "10" },
        { key: "total", value: "false" },
      ],
      description:
        "The first page of seek paging: pass meta.next_after_id as after_id for the next " +
        "page, until a page has none. Each page costs the same however deep it is.",
      tests: [
        expectStatus(200),
        `pm.test("an after_id page: next_after_id is the last id shown, absent on the last ` +
          `page", function () { const body = pm.response.json(); ` +
          `pm.expect(body.data.length).to.be.at.least(1); ` +
          `pm.expect(body.meta).to.not.have.property("total"); ` +
          `pm.expect(body.meta.after_id).to.eql(0); if (body.meta.next_after_id !== ` +
          `undefined) pm.expect(body.meta.next_after_id).to.eql(body.data[body.data.length ` +
          `- 1].id); });`,
      ],
    }),
  ];
}

function getSteps(_def: ResourceDefinition, paths: FolderPaths): Json[] {
  return [
    item({
      name: `Get the ${paths.what}`,
      method: "GET",
      path: paths.member,
      tests: [
        expectStatus(200),
        `pm.test("the created record", function () { ` +
          `pm.expect(pm.response.json().data.id).to.eql(pm.collectionVariables.get("${paths.idVariable}")); ` +
          `});`,
        `pm.collectionVariables.set("${paths.prefix}_etag", pm.response.headers.get("ETag"));`,
      ],
    }),
  ];
}

function updateSteps(def: ResourceDefinition, paths: FolderPaths): Json[] {
  return [
    item({
      name: `Update the ${paths.what}`,
      method: "PATCH",
      path: paths.member,
      body: bodyText(updateExample(def)),
      // The ETag of the GET before, when the folder has one.
      headers: def.operations.includes("get")
        ? [{ key: "If-Match", value: `{{${paths.prefix}_etag}}` }]
        : [],
      tests: [
        expectStatus(200),
        `pm.test("updated", function () { pm.expect(pm.response.json().data.updated).to.eql(true); });`,
      ],
    }),
  ];
}

function deleteSteps(_def: ResourceDefinition, paths: FolderPaths): Json[] {
  return [
    item({
      name: `Dry-run delete the ${paths.what}`,
      method: "DELETE",
      path: paths.member,
      headers: [{ key: "X-Dry-Run", value: "1" }],
      tests: [
        expectStatus(200),
        `pm.test("a soft delete, previewed", function () { const data = ` +
          `pm.response.json().data; pm.expect(data.dry_run).to.eql(true); ` +
          `pm.expect(data.deleted).to.eql(false); pm.expect(data.mode).to.eql("soft"); });`,
      ],
    }),
    item({
      name: `Delete the ${paths.what}`,
      method: "DELETE",
      path: paths.member,
      tests: [
        expectStatus(200),
        `pm.test("deleted", function () { pm.expect(pm.response.json().data.deleted).to.eql(true); });`,
      ],
    }),
  ];
}

/** A report of the folder's records: counted in groups by its first groupable field, if it has one. */
function aggregateSteps(def: ResourceDefinition, paths: FolderPaths): Json[] {
  const [key] = reportVocabulary(reportFields(def)).groupBy;
  return [
    item({
      name: `Count ${def.name}${key ? ` by ${key}` : ""}`,
      method: "GET",
      path: `${paths.collection}/aggregate`,
      query: key ? [{ key: "group_by", value: key }] : [],
      tests: [
        expectStatus(200),
        `pm.test("groups with their count", function () { const body = pm.response.json(); ` +
          `pm.expect(body.data).to.be.an("array"); ` +
          `pm.expect(body.meta.groups).to.eql(body.data.length); });`,
      ],
    }),
  ];
}

/** A folder's steps in the order they run, each there when the resource has its operation. */
const FOLDER_STEPS: [Operation, (def: ResourceDefinition, paths: FolderPaths) => Json[]][] = [
  ["create", createSteps],
  ["list", listSteps],
  ["aggregate", aggregateSteps],
  ["get", getSteps],
  ["update", updateSteps],
  ["delete", deleteSteps],
];

/** What a company needs for a folder: its add-ons, and a free quota slot when a quota limits it. */
function prerequisiteOf(def: ResourceDefinition): string {
  const needs = [...new Set([def.addon, ...(def.parent ? [def.parent.resource.addon] : [])])];
  return (
    `needs the ${needs.join(" and ")} ` +
    `add-on${needs.length > 1 ? "s" : ""}${def.quota ? ` and a free ${def.quota} quota slot` : ""}`
  );
}

function resourceFolder(def: ResourceDefinition): Json {
  const paths = folderPaths(def);
  const { before, after } = supportingRecords(def, paths.prefix);
  const steps = FOLDER_STEPS.flatMap(([operation, steps]) =>
    def.operations.includes(operation) ? steps(def, paths) : [],
  );
  const prerequisite = prerequisiteOf(def);
  return {
    name: def.parent ? `${def.parent.resource.name} ${def.name}` : def.name,
    description:
      `${def.description} Prerequisite: the company ${prerequisite}; without it the ` +
      `folder's requests answer 402 and its tests report them as skipped.`,
    item: [...before, ...steps, ...after].map((entry, index) =>
      guardItem(entry, { flag: `${paths.prefix}_skipped`, prerequisite, reset: index === 0 }),
    ),
  };
}

/** Puts a folder's guard on an item built by item(). */
function guardItem(entry: Json, guard: NonNullable<RequestSpec["guard"]>): Json {
  const tests = entry.event.find((event: Json) => event.listen === "test").script.exec as string[];
  return item({ ...entry.spec, tests, guard });
}

/** The change feed as a follower reads it: where it ends now, then a long-poll from there. */
function eventsFolder(): Json {
  return {
    name: "events",
    description:
      "Following the change feed live: `after=latest` gives the cursor of the newest event, and " +
      "`wait` long-polls from it (here 1 s, up to 30): the answer comes as soon as an " +
      "event commits, else empty.",
    item: [
      item({
        name: "Start at the newest event",
        method: "GET",
        path: "/v1/events",
        query: [{ key: "after", value: "latest" }],
        tests: [
          expectStatus(200),
          `pm.test("no events, and the cursor to follow from", function () { const body = ` +
            `pm.response.json(); pm.expect(body.data).to.eql([]); ` +
            `pm.expect(body.meta.next_cursor).to.match(/^evt_/); });`,
          `pm.collectionVariables.set("events_cursor", pm.response.json().meta.next_cursor);`,
        ],
      }),
      item({
        name: "Wait for the next event",
        method: "GET",
        path: "/v1/events",
        query: [
          { key: "after", value: "{{events_cursor}}" },
          { key: "wait", value: "1" },
        ],
        tests: [
          expectStatus(200),
          `pm.test("a page of the events after the cursor", function () { ` +
            `pm.expect(pm.response.json().data).to.be.an("array"); });`,
        ],
      }),
    ],
  };
}

/**
 * Parameterless GET operations the resource folders do not cover (usage, health, this surface…),
 * one folder per tag.
 */
function readFolders(document: Json, covered: Set<string>): Json[] {
  const folders = new Map<string, Json[]>();
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>)) {
    const operation = methods.get;
    if (!operation || path.includes("{") || covered.has(path)) continue;
    const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
    const tag = operation.tags?.[0] ?? "other";
    const requests = folders.get(tag) ?? [];
    requests.push(
      item({
        name: operation.summary ?? path,
        method: "GET",
        path,
        public: isPublic,
        tests: [expectStatus(200)],
        description: operation.description,
        guard: {
          flag: `${path.replace(/[^a-z]+/g, "_")}_skipped`,
          prerequisite: "needs the add-on this list belongs to",
          reset: true,
        },
      }),
    );
    folders.set(tag, requests);
  }
  return [...folders].map(([name, requests]) => ({ name, item: requests }));
}

/** What a token needs for an operation, from its security requirement, as a sentence. */
export function scopeSentence(operation: Json): string | undefined {
  const security = operation.security as { bearerAuth?: string[] }[] | undefined;
  if (!security || security.length === 0) return undefined;
  const scopes = security.flatMap((requirement) => requirement.bearerAuth ?? []);
  if (scopes.length === 0) return "Any token.";
  if (scopes.length === 1) return `Needs the scope \`${scopes[0]}\`.`;
  return `Needs any one of the scopes ${scopes.map((scope) => `\`${scope}\``).join(", ")}.`;
}

/** Each request's description starts with the scope its operation needs (docs/tokens.md). */
function withScopes(items: Json[], document: Json): Json[] {
  const templates = Object.keys(document.paths as Record<string, Json>).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  for (const entry of items) {
    if (Array.isArray(entry.item)) withScopes(entry.item, document);
    const request = entry.request as Json | undefined;
    if (!request) continue;
    const path = `/${(request.url.path as string[]).join("/")}`;
    const match = templates.find(({ pattern }) => pattern.test(path));
    const operation = match && document.paths[match.template][request.method.toLowerCase()];
    const sentence = operation && scopeSentence(operation);
    // A description copied from the operation already says it.
    if (sentence && !String(request.description ?? "").includes("**Scope:**"))
      request.description = request.description ? `${sentence} ${request.description}` : sentence;
  }
  return items;
}

export function collectionDocument(document: Json, serverUrl: string): Json {
  const definitions = [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS];
  const covered = new Set([
    ...definitions.map((def) => pathsOf(def).collection.replace(/:([^/]+)/g, "{$1}")),
    "/v1/events",
  ]);
  return {
    info: {
      name: document.info.title,
      description:
        `${document.info.description}\n\nSet \`baseUrl\` and \`token\`, then run the ` +
        `whole collection: each folder creates what it needs and deletes it again. A folder ` +
        `whose add-on the company lacks, or whose plan quota is full, reports its requests ` +
        `as skipped (they answer 402) instead of failing.`,
      schema: SCHEMA_URL,
    },
    auth: { type: "bearer", bearer: [{ key: "token", value: "{{token}}", type: "string" }] },
    variable: [
      {
        key: "baseUrl",
        value: serverUrl,
        type: "string",
        description:
          "The API's address, as this server was reached (X-Forwarded-Proto/-Host behind a proxy).",
      },
      {
        key: "token",
        value: "",
        type: "string",
        description:
          "An API token (erp_…) of the company to run as; the requests send it as a Bearer token.",
      },
    ],
    item: withScopes(
      [...definitions.map(resourceFolder), eventsFolder(), ...readFolders(document, covered)],
      document,
    ),
  };
}

const CollectionSchema = Type.Object(
  {
    info: Type.Object({ name: Type.String(), schema: Type.String() }, open),
    item: Type.Array(Type.Object({}, open)),
  },
  {
    ...open,
    title: "Collection",
    description:
      "An API-client collection, format 2.1 (https://schema.getpostman.com/json/collection/v2.1.0/collection.json).",
  },
);

export function collectionRoutes(app: AnyElysia) {
  return specificationRoute(
    "collection",
    "/v1/collection.json",
    {
      operationId: "getCollection",
      summary: "API-client collection",
      description:
        "Collection format 2.1, built from the same routes on every request. Set the variables " +
        "`baseUrl` and `token`; each resource folder creates a record, lists (by offset " +
        "and by after_id), reads, updates, dry-run deletes and deletes it. No token, not " +
        "metered.",
      responses: { 200: { description: "The collection." } },
    },
    (request) => collectionDocument(openApiDocument(app), publicOrigin(request)),
    CollectionSchema,
  );
}
