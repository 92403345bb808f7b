// The routes of one resource, built from its definition: one implementation, every resource.
import { Elysia } from "elysia";
import { readJsonBody } from "../http/body.ts";
import { contextOf, requestContext, WRITE_METHODS } from "../http/request-context.ts";
import type { Operation, ResourceDefinition } from "../resources/definition.ts";
import { checkIdempotencyKey } from "../writes/idempotency.ts";
import { batchRoute } from "./batch-route.ts";
import { createRoute } from "./create-route.ts";
import { deleteRoute } from "./delete-route.ts";
import { getRoute } from "./get-route.ts";
import { listRoute } from "./list-route.ts";
import { pathsOf, type RouteDeps } from "./route-context.ts";
import { updateRoute } from "./update-route.ts";
import { upsertRoute } from "./upsert-route.ts";

function resourceApp(def: ResourceDefinition, deps: RouteDeps) {
  return new Elysia({ name: `resource:${pathsOf(def).collection}` })
    .use(requestContext)
    // Admission comes before the body is read, so a refusal never depends on the body.
    .onParse(async ({ request, set }) => {
      await deps.admit(request, contextOf(request), def.addon, set.headers);
      return (await readJsonBody(request)) ?? null;
    })
    .derive(async ({ request, ctx, set }) => {
      const company = await deps.admit(request, ctx, def.addon, set.headers);
      if (WRITE_METHODS.has(request.method)) checkIdempotencyKey(ctx.idempotencyKey);
      return { company };
    });
}

export type ResourceApp = ReturnType<typeof resourceApp>;

const OPERATION_ROUTES: Record<Operation, (app: ResourceApp, def: ResourceDefinition, deps: RouteDeps) => void> = {
  list: listRoute,
  get: getRoute,
  create: createRoute,
  update: updateRoute,
  delete: deleteRoute,
  batch: batchRoute,
  upsert: upsertRoute,
};

export function resourceRoutes(def: ResourceDefinition, deps: RouteDeps): ResourceApp {
  const app = resourceApp(def, deps);
  for (const operation of def.operations) OPERATION_ROUTES[operation](app, def, deps);
  return app;
}

export type { RouteDeps };
