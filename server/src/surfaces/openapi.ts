// GET /v1/openapi.json: the OpenAPI 3.1 document, rebuilt from the live routes on every request.
import { Type } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import { publicOrigin } from "../http/origin.ts";
import type { CustomField } from "../resources/custom-fields.ts";
import { companyDocument } from "./company-document.ts";
import { documentText, openApiDocument } from "./openapi-document.ts";
import { open, specificationRoute } from "./specification-route.ts";

const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }, open),
    paths: Type.Record(Type.String(), Type.Object({}, open)),
    components: Type.Object({}, open),
  },
  {
    ...open,
    title: "OpenApiDocument",
    description: "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.1).",
  },
);

/**
 * `app` is the whole application: the document describes every route it serves when asked.
 * `companyFields` answers the custom fields of the company whose token a request carries (none
 * without one; 401 for a bad one): the document then describes them (company-document.ts).
 */
export function openApiRoutes(
  app: AnyElysia,
  companyFields: (request: Request) => Promise<CustomField[] | undefined> = async () => undefined,
) {
  return specificationRoute(
    "openapi",
    "/v1/openapi.json",
    {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI document",
      description:
        "Generated from the routes the server serves, on every request. No token, not metered. " +
        "Fetched with a token, it describes that company's custom fields exactly (each record's " +
        "`custom_fields` and each list's `cf.<key>` filters), so generators make a client typed " +
        "for the company.",
      responses: { 200: { description: "The OpenAPI 3.1 document." } },
    },
    // As text: only the text can list a create's 201 before its dry-run's 200 (documentText).
    async (request) => {
      const document = openApiDocument(app, publicOrigin(request));
      const fields = await companyFields(request);
      return new Response(documentText(fields ? companyDocument(document, fields) : document), {
        headers: { "content-type": "application/json", vary: "Authorization" },
      });
    },
    OpenApiDocumentSchema,
  );
}
