// The resource definitions every surface reads: routes, OpenAPI, collection, SDK types.
import type { ResourceDefinition } from "./definition.ts";
import { clients } from "./clients.ts";
import { equipment } from "./equipment.ts";
import { estimates } from "./estimates.ts";
import { projects } from "./projects.ts";
import { rentals } from "./rentals.ts";
import { subcontractors } from "./subcontractors.ts";
import { workers } from "./workers.ts";

export const RESOURCES: readonly ResourceDefinition[] = [projects, workers, clients, estimates, subcontractors, equipment];
export const SUB_RESOURCES: readonly ResourceDefinition[] = [rentals];
