// The routes of one resource, built from its definition: one implementation, every resource.
import { Elysia } from "elysia";
import { and, eq, isNull } from "drizzle-orm";
import type { Admission } from "../auth/admission.ts";
import type { Company } from "../auth/company.ts";
import type { Database, Executor } from "../db/client.ts";
import { notFound } from "../http/problem.ts";
import { described, enumParam, fieldListParam, flagParam, integerParam, parseQuery, textParam, type ParamParser } from "../http/query.ts";
import { readJsonBody } from "../http/body.ts";
import { contextOf, requestContext } from "../http/request-context.ts";
import { readResponse } from "../http/respond.ts";
import { createRecord } from "../writes/create.ts";
import { deleteRecordById } from "../writes/delete.ts";
import { executeWrite, type WriteResult } from "../writes/execute.ts";
import { updateRecordById } from "../writes/update.ts";
import { crudDetail } from "./crud-docs.ts";
import type { ResourceDefinition } from "./definition.ts";
import { CreateResult, DeleteResult, itemEnvelope, listEnvelope, updateResult } from "./envelopes.ts";
import { createBodySchema, readableFieldNames, readableRecordSchema, recordSchema, updateBodySchema } from "./fields.ts";
import { findRecord, listRecords, type Scope } from "./store.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export interface RouteDeps {
  db: Database;
  admit: Admission;
}

/** Path ids are positive integers; anything else names no record. */
function parseId(value: string | undefined, what: string): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw notFound(what, value ?? "");
  return Number(value);
}

export const limitParam = described(integerParam(1), `Page size: default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped (meta.limit shows the effective one).`, { default: DEFAULT_LIMIT });
export const offsetParam = described(integerParam(0), "Start position in the result set (records are ordered by id).", { default: 0 });

/** The page a list answers: limit defaults and is capped, offset defaults to 0. */
export function pageWindow(query: { limit?: unknown; offset?: unknown }): { limit: number; offset: number } {
  return {
    limit: Math.min((query.limit as number | undefined) ?? DEFAULT_LIMIT, MAX_LIMIT),
    offset: (query.offset as number | undefined) ?? 0,
  };
}

export function listParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const parsers: Record<string, ParamParser<unknown>> = {
    limit: limitParam,
    offset: offsetParam,
    fields: described(fieldListParam(readableFieldNames(def)), "Comma-separated fields to return; `id` is always included. An unknown field is a 400."),
  };
  if (def.search.length > 0) parsers.q = described(textParam, `Case-insensitive substring of ${def.search.join(", ")}; % and _ match themselves.`);
  if (def.status) parsers.status = enumParam(def.status.values);
  for (const filter of def.filters) parsers[filter] = described(integerParam(1), `Only records whose ${filter} is this id.`);
  return parsers;
}

const writeParsers = { dry_run: described(flagParam, "`1` makes the request a dry-run, like the X-Dry-Run header.") };

export function crudRoutes(def: ResourceDefinition, deps: RouteDeps) {
  const { db, admit } = deps;
  const collection = def.parent ? `/v1/${def.parent.resource}/:id/${def.name}` : `/v1/${def.name}`;
  const memberParam = def.parent ? "rental_id" : "id";
  const member = `${collection}/:${memberParam}`;
  const what = def.singular.toLowerCase();
  const parsers = listParsers(def);
  const getParsers = { fields: parsers.fields! };
  const record = recordSchema(def);
  const readable = readableRecordSchema(def);

  async function scopeOf(executor: Executor, company: Company, params: Record<string, string>, lock = false): Promise<Scope> {
    if (!def.parent) return { companyId: company.id };
    const parentId = parseId(params.id, def.parent.resource);
    const { table } = def.parent;
    const query = executor.select({ id: table.id! }).from(table)
      .where(and(eq(table.company_id!, company.id), eq(table.id!, parentId), isNull(table.deleted_at!))).limit(1);
    const [parent] = lock ? await query.for("update") : await query;
    if (!parent) throw notFound(def.parent.resource, parentId);
    return { companyId: company.id, parentId };
  }

  const send = (result: WriteResult, set: { status?: number | string; headers: Record<string, unknown> }): unknown => {
    set.status = result.status;
    Object.assign(set.headers, result.headers ?? {});
    return result.body;
  };
  const writeQuery = (request: Request): void => {
    parseQuery(new URL(request.url), writeParsers);
  };

  const app = new Elysia({ name: `resource:${collection}` })
    .use(requestContext)
    // Authentication comes before the body is read, so a refusal never depends on the body.
    .onParse(async ({ request, set }) => {
      await admit(request, contextOf(request), def.addon, set.headers);
      return (await readJsonBody(request)) ?? null;
    })
    .derive(async ({ request, ctx, set }) => ({ company: await admit(request, ctx, def.addon, set.headers) }));

  if (def.operations.includes("list")) {
    app.get(collection, async ({ request, company, params }) => {
      const query = parseQuery(new URL(request.url), parsers);
      const { limit, offset } = pageWindow(query);
      const filters = Object.fromEntries(def.filters.filter((name) => query[name] !== undefined).map((name) => [name, query[name] as number]));
      const scope = await scopeOf(db, company, params);
      const { rows, total } = await listRecords(db, def, scope, {
        limit, offset, filters,
        q: query.q as string | undefined,
        status: query.status as string | undefined,
        fields: (query.fields as string[] | undefined) ?? readableFieldNames(def),
      });
      return readResponse(request, { data: rows, meta: { total, limit, offset } });
    }, {
      detail: crudDetail(def, "list", parsers),
      response: { 200: listEnvelope(readable, `${def.singular}List`) },
    });
  }

  if (def.operations.includes("get")) {
    app.get(member, async ({ request, company, params }) => {
      const query = parseQuery(new URL(request.url), getParsers);
      const scope = await scopeOf(db, company, params);
      const id = parseId((params as Record<string, string>)[memberParam], what);
      const found = await findRecord(db, def, scope, id, { fields: query.fields as string[] | undefined });
      if (!found) throw notFound(what, id);
      return readResponse(request, { data: found });
    }, {
      detail: crudDetail(def, "get", getParsers),
      response: { 200: itemEnvelope(readable, `${def.singular}Item`) },
    });
  }

  if (def.operations.includes("create")) {
    app.post(collection, async ({ request, company, params, body, ctx, set }) => {
      writeQuery(request);
      const result = await executeWrite(db, ctx, async (tx) => createRecord(tx, {
        def, company, dryRun: ctx.dryRun,
        scope: await scopeOf(tx, company, params, true),
        body: body as Record<string, unknown>,
        location: (id) => `${new URL(request.url).pathname}/${id}`,
      }));
      return send(result, set);
    }, {
      body: createBodySchema(def),
      detail: crudDetail(def, "create", writeParsers),
      response: { 200: CreateResult, 201: CreateResult },
    });
  }

  if (def.operations.includes("update")) {
    app.patch(member, async ({ request, company, params, body, ctx, set }) => {
      writeQuery(request);
      const id = parseId((params as Record<string, string>)[memberParam], what);
      const result = await executeWrite(db, ctx, async (tx) => updateRecordById(tx, {
        def, company, id, dryRun: ctx.dryRun,
        scope: await scopeOf(tx, company, params, true),
        body: body as Record<string, unknown>,
        ifMatch: request.headers.get("if-match"),
      }));
      return send(result, set);
    }, {
      body: updateBodySchema(def),
      detail: crudDetail(def, "update", writeParsers),
      response: { 200: updateResult(record) },
    });
  }

  if (def.operations.includes("delete")) {
    app.delete(member, async ({ request, company, params, ctx, set }) => {
      writeQuery(request);
      const id = parseId((params as Record<string, string>)[memberParam], what);
      const result = await executeWrite(db, ctx, async (tx) => deleteRecordById(tx, {
        def, company, id, dryRun: ctx.dryRun,
        scope: await scopeOf(tx, company, params, true),
        ifMatch: request.headers.get("if-match"),
      }));
      return send(result, set);
    }, {
      detail: crudDetail(def, "delete", writeParsers),
      response: { 200: DeleteResult },
    });
  }
  return app;
}
