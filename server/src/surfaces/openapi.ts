// GET /v1/openapi.json: the OpenAPI 3.1 document, rebuilt from the live routes on every request.
import { Type, type Static } from "@sinclair/typebox";
import { Elysia, type AnyElysia } from "elysia";
import { openApiDocument } from "./openapi-document.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { publicOrigin } from "../http/origin.ts";

const open = { additionalProperties: true };
const OpenApiDocumentSchema = Type.Object({
  openapi: Type.String(),
  info: Type.Object({ title: Type.String(), version: Type.String() }, open),
  paths: Type.Record(Type.String(), Type.Object({}, open)),
  components: Type.Object({}, open),
}, { ...open, title: "OpenApiDocument", description: "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.1)." });

/** `app` is the whole application: the document describes every route it serves when asked. */
export function openApiRoutes(app: AnyElysia) {
  return new Elysia({ name: "surface:openapi" }).get("/v1/openapi.json", ({ request }) =>
    openApiDocument(app, publicOrigin(request)) as Static<typeof OpenApiDocumentSchema>, {
    detail: operationDetail({
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI document",
      description: "Generated from the routes the server serves, on every request. No token, not metered.",
      tags: ["specification"],
      public: true,
      responses: { 200: { description: "The OpenAPI 3.1 document." } },
    }),
    response: { 200: OpenApiDocumentSchema },
  });
}
