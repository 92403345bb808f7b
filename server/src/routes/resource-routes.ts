// The routes of one resource, built from its definition: one implementation, every resource.
import { admitted, type AdmittedApp } from "../auth/admission.ts";
import { aggregateRoute } from "./aggregate-route.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { batchRoute } from "./batch-route.ts";
import { createRoute } from "./create-route.ts";
import { deleteRoute } from "./delete-route.ts";
import { getRoute } from "./get-route.ts";
import { listRoute } from "./list-route.ts";
import { restoreRoute } from "./restore-route.ts";
import { pathsOf, type RouteDeps } from "./route-context.ts";
import { updateRoute } from "./update-route.ts";
import { upsertRoute } from "./upsert-route.ts";

const OPERATION_ROUTES: Record<
  Operation,
  (app: AdmittedApp, def: ResourceDefinition, deps: RouteDeps) => void
> = {
  list: listRoute,
  aggregate: aggregateRoute,
  get: getRoute,
  create: createRoute,
  update: updateRoute,
  delete: deleteRoute,
  restore: restoreRoute,
  batch: batchRoute,
  upsert: upsertRoute,
};

export function resourceRoutes(def: ResourceDefinition, deps: RouteDeps): AdmittedApp {
  const app = admitted(`resource:${pathsOf(def).collection}`, def.addon, deps.admission);
  for (const operation of def.operations) OPERATION_ROUTES[operation](app, def, deps);
  return app;
}
