// The resource definitions every surface reads: routes, OpenAPI, collection, SDK types.
import type { MySqlTable } from "drizzle-orm/mysql-core";
import type { Executor } from "../db/client.ts";
import { clients } from "./clients.ts";
import type { ResourceDefinition } from "./definition.ts";
import { equipment } from "./equipment.ts";
import { estimates } from "./estimates.ts";
import { equipmentCategories, trades } from "./lookups.ts";
import { projects } from "./projects.ts";
import { rentals } from "./rentals.ts";
import { subcontractors } from "./subcontractors.ts";
import { workers } from "./workers.ts";

/** The top-level collections, in the order documents list them. */
export const RESOURCES: readonly ResourceDefinition[] = [projects, workers, clients, estimates, subcontractors, equipment];
/** Collections under a member of another (a piece of equipment's rentals). */
export const SUB_RESOURCES: readonly ResourceDefinition[] = [rentals];
/** Read-only lists seeded for every company. */
export const LOOKUPS: readonly ResourceDefinition[] = [trades, equipmentCategories];

export const ALL_RESOURCES: readonly ResourceDefinition[] = [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS];

const byTable = new Map<MySqlTable, ResourceDefinition>(ALL_RESOURCES.map((def) => [def.table, def]));

/** The definition of the resource a table holds (a reference's target, a dependent, a parent). */
export function definitionOf(table: MySqlTable): ResourceDefinition {
  const def = byTable.get(table);
  if (!def) throw new Error("no resource definition holds this table");
  return def;
}

const byName = new Map<string, ResourceDefinition>(ALL_RESOURCES.map((def) => [def.name, def]));

/** The definition of a resource by its name (its path segment). */
export function definitionNamed(name: string): ResourceDefinition {
  const def = byName.get(name);
  if (!def) throw new Error(`no resource is named ${name}`);
  return def;
}

/** Gives a new company the rows every company starts with. */
export async function seedLookups(db: Executor, companyId: number): Promise<void> {
  for (const def of LOOKUPS) {
    if (def.seed) await db.insert(def.table).values(def.seed.map((name) => ({ company_id: companyId, name })));
  }
}
