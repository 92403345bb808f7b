// Read-only lookups seeded for every company: trades and equipment categories.
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { and, asc, count, eq } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { equipmentCategories, trades } from "../db/schema.ts";
import { integerParam, parseQuery } from "../http/query.ts";
import { requestContext } from "../http/request-context.ts";
import { readResponse } from "../http/respond.ts";
import { DEFAULT_LIMIT, MAX_LIMIT, type RouteDeps } from "./crud-routes.ts";
import type { Addon } from "./definition.ts";
import { listEnvelope } from "./envelopes.ts";

const DEFAULT_TRADES = ["Carpentry", "Concrete", "Electrical", "Plumbing", "HVAC", "Masonry", "Painting", "Roofing", "General labor"];
const DEFAULT_CATEGORIES = ["Excavators", "Loaders", "Cranes", "Aerial lifts", "Generators", "Compressors", "Scaffolding", "Vehicles", "Hand tools"];

const LOOKUPS = [
  { path: "trades", table: trades, addon: "api" as Addon, seed: DEFAULT_TRADES, summary: "List trades", description: "Trades a worker or subcontractor can have (read-only, seeded for every company)." },
  { path: "equipment-categories", table: equipmentCategories, addon: "equipment" as Addon, seed: DEFAULT_CATEGORIES, summary: "List equipment categories", description: "Equipment categories (read-only, seeded for every company). Needs the equipment add-on." },
];

const LookupRecord = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false, title: "Lookup" });

export async function seedLookups(db: Executor, companyId: number): Promise<void> {
  for (const lookup of LOOKUPS) {
    await db.insert(lookup.table).values(lookup.seed.map((name) => ({ company_id: companyId, name })));
  }
}

export function lookupRoutes(deps: RouteDeps) {
  const app = new Elysia({ name: "lookups" }).use(requestContext);
  for (const lookup of LOOKUPS) {
    app.get(`/v1/${lookup.path}`, async ({ request, ctx }) => {
      const company = await deps.admit(request, ctx, lookup.addon);
      const query = parseQuery(new URL(request.url), { limit: integerParam(1), offset: integerParam(0) });
      const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
      const offset = query.offset ?? 0;
      const where = and(eq(lookup.table.company_id, company.id));
      const [rows, totals] = await Promise.all([
        deps.db.select({ id: lookup.table.id, name: lookup.table.name }).from(lookup.table).where(where)
          .orderBy(asc(lookup.table.id)).limit(limit).offset(offset),
        deps.db.select({ total: count() }).from(lookup.table).where(where),
      ]);
      return readResponse(request, { data: rows, meta: { total: Number(totals[0]?.total ?? 0), limit, offset } });
    }, {
      detail: { summary: lookup.summary, description: lookup.description, tags: ["lookups"] },
      response: { 200: listEnvelope(LookupRecord) },
    });
  }
  return app;
}
