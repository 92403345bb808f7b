// The tables reference fields point at, shared by the definitions that name them.
import * as schema from "../db/schema.ts";
import type { RefTarget, ResourceTable } from "./definition.ts";

const target = (resource: string, table: unknown, softDeleted: boolean, addon: RefTarget["addon"]): RefTarget =>
  ({ resource, table: table as ResourceTable, softDeleted, addon });

export const TARGETS = {
  clients: target("clients", schema.clients, true, "api"),
  estimates: target("estimates", schema.estimates, true, "estimates"),
  projects: target("projects", schema.projects, true, "api"),
  equipment: target("equipment", schema.equipment, true, "equipment"),
  trades: target("trades", schema.trades, false, "api"),
  equipmentCategories: target("equipment-categories", schema.equipmentCategories, false, "equipment"),
};

export const rentalsTable = schema.rentals as unknown as ResourceTable;
