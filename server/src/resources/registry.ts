// The resource definitions every surface reads (routes, OpenAPI, collection, SDK types), each with
// its references linked to the definitions they name.
import { getTableName } from "drizzle-orm";
import type { MySqlTable } from "drizzle-orm/mysql-core";
import type { Addon } from "../auth/addons.ts";
import type { Executor } from "../db/client.ts";
import { clients } from "./clients.ts";
import type { DeclaredResource, FieldSpec, ResourceDefinition } from "./definition.ts";
import { equipment } from "./equipment.ts";
import { estimates } from "./estimates.ts";
import { equipmentCategories } from "./equipment-categories.ts";
import { projects } from "./projects.ts";
import { rentals } from "./rentals.ts";
import { subcontractors } from "./subcontractors.ts";
import { trades } from "./trades.ts";
import { workers } from "./workers.ts";

/** The top-level collections, in the order documents list them. */
const TOP_LEVEL = [projects, workers, clients, estimates, subcontractors, equipment];
/** Collections under a member of another (a piece of equipment's rentals). */
const UNDER_A_MEMBER = [rentals];
/** The lookups: each company's own lists of names its records point at, seeded for a new one. */
const NAMES = [trades, equipmentCategories];

/**
 * Links every declared definition: each reference (a field's `target`, each dependent's and the
 * parent's `resource`) becomes the definition it names. Definitions refer to each other in circles
 * (a project's budget estimate, an estimate's projects), so every definition exists before any
 * reference to it is filled in. Answers the linked definition of each declared one.
 */
function link(
  declared: readonly DeclaredResource[],
): (def: DeclaredResource) => ResourceDefinition {
  const linked = new Map<DeclaredResource, ResourceDefinition>();
  const byTable = new Map<MySqlTable, ResourceDefinition>();
  for (const def of declared) {
    // Filled in below, once every definition it may refer to exists.
    const shell = { ...def } as unknown as ResourceDefinition;
    linked.set(def, shell);
    byTable.set(def.table, shell);
  }
  const resolve = (table: MySqlTable): ResourceDefinition => {
    const def = byTable.get(table);
    if (!def) throw new Error(`no registered resource holds the table ${getTableName(table)}`);
    return def;
  };
  const fields = (specs: DeclaredResource["fields"]): Record<string, FieldSpec> =>
    Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [
        name,
        spec.type === "ref" ? { ...spec, target: resolve(spec.target) } : spec,
      ]),
    );
  for (const [def, shell] of linked) {
    const { table: parentTable, ...parent } = def.parent ?? { table: undefined };
    Object.assign(shell, {
      fields: fields(def.fields),
      readOnly: fields(def.readOnly),
      dependents: def.dependents.map(({ table, ...dependent }) => ({
        ...dependent,
        resource: resolve(table),
      })),
      parent: parentTable && { ...parent, resource: resolve(parentTable) },
    });
  }
  return (def) => linked.get(def)!;
}

const linked = link([...TOP_LEVEL, ...UNDER_A_MEMBER, ...NAMES]);

/** The top-level collections of records. */
export const RESOURCES: readonly ResourceDefinition[] = TOP_LEVEL.map(linked);
/** The collections of records under a member of another. */
export const SUB_RESOURCES: readonly ResourceDefinition[] = UNDER_A_MEMBER.map(linked);
/** The lookups (trades, equipment categories). */
export const LOOKUPS: readonly ResourceDefinition[] = NAMES.map(linked);

/** Every definition the API serves: collections of records, sub-collections and lookups. */
export const ALL_DEFINITIONS: readonly ResourceDefinition[] = [
  ...RESOURCES,
  ...SUB_RESOURCES,
  ...LOOKUPS,
];

/** Every add-on a company may have: `api`, then each one a definition names, in the documents' order. */
export const ADDONS: readonly Addon[] = [
  ...new Set(["api", ...ALL_DEFINITIONS.map((def) => def.addon)]),
];

const byName = new Map<string, ResourceDefinition>(ALL_DEFINITIONS.map((def) => [def.name, def]));

/** The definition of a resource by its name (its path segment). */
/** True when a registered definition has this name (events also name configuration, e.g. custom-fields). */
export const isResourceNamed = (name: string): boolean => byName.has(name);

export function definitionNamed(name: string): ResourceDefinition {
  const def = byName.get(name);
  if (!def) throw new Error(`no resource is named ${name}`);
  return def;
}

/** Gives a new company the lookups every company starts with. */
export async function seedLookups(db: Executor, companyId: number): Promise<void> {
  for (const def of LOOKUPS) {
    const seed = def.lookup?.seed ?? [];
    if (seed.length > 0)
      await db.insert(def.table).values(seed.map((name) => ({ company_id: companyId, name })));
  }
}
