// Read-only lookups seeded for every company: trades and equipment categories.
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { asc, count, eq } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { equipmentCategories, trades } from "../db/schema.ts";
import { parseQuery } from "../http/query.ts";
import { requestContext } from "../http/request-context.ts";
import { readResponse } from "../http/respond.ts";
import { ADMISSION_ERRORS, mergeErrors, operationDetail } from "../surfaces/operation-docs.ts";
import { limitParam, offsetParam, pageWindow, type RouteDeps } from "./crud-routes.ts";
import type { Addon } from "./definition.ts";
import { listEnvelope } from "./envelopes.ts";

const DEFAULT_TRADES = ["Carpentry", "Concrete", "Electrical", "Plumbing", "HVAC", "Masonry", "Painting", "Roofing", "General labor"];
const DEFAULT_CATEGORIES = ["Excavators", "Loaders", "Cranes", "Aerial lifts", "Generators", "Compressors", "Scaffolding", "Vehicles", "Hand tools"];

const LOOKUPS = [
  { path: "trades", operationId: "listTrades", table: trades, addon: "api" as Addon, seed: DEFAULT_TRADES, summary: "List trades", description: "Trades a worker or subcontractor can have (read-only, seeded for every company)." },
  { path: "equipment-categories", operationId: "listEquipmentCategories", table: equipmentCategories, addon: "equipment" as Addon, seed: DEFAULT_CATEGORIES, summary: "List equipment categories", description: "Equipment categories (read-only, seeded for every company). Needs the equipment add-on." },
];

const parsers = { limit: limitParam, offset: offsetParam };

const LookupRecord = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false, title: "Lookup" });

export async function seedLookups(db: Executor, companyId: number): Promise<void> {
  for (const lookup of LOOKUPS) {
    await db.insert(lookup.table).values(lookup.seed.map((name) => ({ company_id: companyId, name })));
  }
}

export function lookupRoutes(deps: RouteDeps) {
  const app = new Elysia({ name: "lookups" }).use(requestContext);
  for (const lookup of LOOKUPS) {
    app.get(`/v1/${lookup.path}`, async ({ request, ctx, set }) => {
      const company = await deps.admit(request, ctx, lookup.addon, set.headers);
      const query = parseQuery(new URL(request.url), parsers);
      const { limit, offset } = pageWindow(query);
      const where = eq(lookup.table.company_id, company.id);
      const [rows, totals] = await Promise.all([
        deps.db.select({ id: lookup.table.id, name: lookup.table.name }).from(lookup.table).where(where)
          .orderBy(asc(lookup.table.id)).limit(limit).offset(offset),
        deps.db.select({ total: count() }).from(lookup.table).where(where),
      ]);
      return readResponse(request, { data: rows, meta: { total: Number(totals[0]?.total ?? 0), limit, offset } });
    }, {
      detail: operationDetail({
        operationId: lookup.operationId,
        summary: lookup.summary,
        description: lookup.description,
        tags: ["lookups"],
        query: parsers,
        headers: ["IfNoneMatch"],
        responses: {
          200: { description: "A page of the lookup's records.", headers: ["ETag"] },
          304: { description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.", headers: ["ETag"] },
        },
        errors: mergeErrors(ADMISSION_ERRORS, { 400: ["invalid_query"] }),
      }),
      response: { 200: listEnvelope(LookupRecord) },
    });
  }
  return app;
}
