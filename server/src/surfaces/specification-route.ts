// How a specification surface is served: one GET, tagged `specification`, with no token and not
// metered; `schema` documents (and checks) a JSON answer.
import type { TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { operationDetail, type OperationDocFields } from "../http/operation-docs.ts";

/** For the schemas of documents whose members are not all spelled out. */
export const open = { additionalProperties: true };

export function specificationRoute(
  name: string,
  path: string,
  doc: Omit<OperationDocFields, "tags">,
  answer: (request: Request) => unknown,
  schema?: TSchema,
) {
  return new Elysia({ name: `surface:${name}` }).get(path, ({ request }) => answer(request), {
    detail: operationDetail({ ...doc, tags: ["specification"], public: true }),
    ...(schema ? { response: { 200: schema } } : {}),
  });
}
