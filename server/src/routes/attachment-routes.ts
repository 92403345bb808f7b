// The attachments' routes (docs/attachments.md): a record's uploads and list under its path, each
// attachment's metadata, bytes, deletion and signed link under /v1/attachments, and the signed
// link itself, which needs no token. An attachment is its record's: the record's resource's read
// or write scope guards it, its add-on too, and it is gone (404) while its record is deleted.
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { admitted, type AdmittedApp } from "../auth/admission.ts";
import { requireAddons } from "../auth/bearer.ts";
import type { Company } from "../auth/company.ts";
import { satisfies } from "../auth/scopes.ts";
import type { TokenInfo } from "../auth/tokens.ts";
import { MAX_LINK_SECONDS } from "../attachments/links.ts";
import {
  ATTACHABLE,
  AttachmentSchema,
  findAttachment,
  listAttachments,
} from "../attachments/rows.ts";
import { createdOrPreviewed, itemEnvelope, listEnvelope } from "../http/envelopes.ts";
import { operationDetail, type OperationDoc } from "../http/operation-docs.ts";
import { limitParam, offsetParam, pageWindow } from "../http/paging.ts";
import { described, integerParam, parseQuery, textParam } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import { insufficientScope, notFound, type RefusalCode } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { operationScope } from "../resources/scopes.ts";
import { recordExists } from "../resources/store.ts";
import { attachmentDelete } from "./attachment-delete.ts";
import { contentResponse } from "./attachment-content.ts";
import { type AttachmentDeps, TAGS, UploadResult } from "./attachment-deps.ts";
import { runUpload, uploadParsers } from "./attachment-upload.ts";
import { parseId, WRITE_REFUSALS, writeParsers } from "./route-context.ts";

const BYTES = {
  "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
};
/** A download: the type the file was stored with (application/octet-stream when it had none), any. */
const BYTES_OUT = {
  "application/octet-stream": { schema: { type: "string" } },
  "*/*": { schema: { type: "string" } },
};
const pageParsers = { limit: limitParam, offset: offsetParam };
const linkParsers = {
  expires_in: described(
    integerParam(1, MAX_LINK_SECONDS),
    `Seconds the link works (at most ${MAX_LINK_SECONDS}, the default).`,
  ),
};
const LinkResult = itemEnvelope(
  Type.Object(
    {
      url: Type.String({ description: "Serves the bytes without a token until expires_at." }),
      expires_at: AttachmentSchema.properties.created_at,
    },
    { additionalProperties: false, title: "AttachmentLink" },
  ),
  "AttachmentLinkResult",
);

const what = (def: ResourceDefinition) => def.singular.toLowerCase();
const readScopeOf = (def: ResourceDefinition) => operationScope(def, "get");
const writeScopeOf = (def: ResourceDefinition) => operationScope(def, "update");

/** Any read (or write) scope of a resource that takes attachments: admission's part of the check. */
const ANY_READ = ATTACHABLE.map((def) => readScopeOf(def)[0]!);
const ANY_WRITE = ATTACHABLE.map((def) => writeScopeOf(def)[0]!);

/**
 * The company's live attachment a path names, once the token may use it: 404 for none (another
 * company's, a deleted record's), then 402 without its record's add-on, 403 without its scope.
 */
async function attachmentFor(
  deps: AttachmentDeps,
  company: Company,
  token: TokenInfo,
  params: Record<string, string>,
  access: "read" | "write",
) {
  const id = parseId(params.id, "attachment");
  const found = await findAttachment(deps.db, company.id, id);
  if (!found) throw notFound("attachment", id);
  requireAddons(company, found.def.addon);
  const need = access === "read" ? readScopeOf(found.def) : writeScopeOf(found.def);
  if (!satisfies(token.scopes, need)) throw insufficientScope(need);
  return found;
}

const doc = (
  fields: Omit<OperationDoc, "tags" | "scope" | "public">,
  scope: string | readonly string[],
): ReturnType<typeof operationDetail> => operationDetail({ ...fields, tags: TAGS, scope });

function recordRoutes(app: AdmittedApp, def: ResourceDefinition, deps: AttachmentDeps): void {
  const path = `/v1/${def.name}/:id/attachments`;
  const refusals: RefusalCode[] = [
    ...WRITE_REFUSALS,
    "not_found",
    "payload_too_large",
    "digest_mismatch",
    "quota_exceeded",
    "request_timeout",
  ];
  app.post(
    path,
    ({ company, request, ctx, params, set }) =>
      runUpload(deps, {
        def,
        company,
        request,
        ctx,
        params: params as Record<string, string>,
        set,
      }),
    {
      detail: {
        ...doc(
          {
            operationId: `upload${def.singular}Attachment`,
            summary: `Attach a file to a ${what(def)}`,
            description:
              "The file is the raw request body (any Content-Type, kept and served back; " +
              "Content-Length or chunked), at most 100 MiB: a larger Content-Length is refused " +
              "before any byte is stored, a chunked body at the limit. An optional RFC 9530 " +
              "`Content-Digest: sha-256=:…:` that does not match is 422 digest_mismatch with " +
              "nothing kept. The plan's storage quota applies (402). A dry-run checks the record, " +
              "the quota, the size and the digest and stores nothing.",
            query: uploadParsers,
            headers: ["IdempotencyKey", "XDryRun"],
            refusals,
            responses: {
              200: { description: "Dry-run: what would be stored." },
              201: { description: "Stored.", headers: ["Location"] },
            },
          },
          writeScopeOf(def),
        ),
        requestBody: { required: true, content: BYTES },
      } as ReturnType<typeof operationDetail>,
      response: createdOrPreviewed(UploadResult),
    },
  );
  app.get(
    path,
    async ({ company, request, params, set }) => {
      const page = pageWindow(parseQuery(request.url, pageParsers));
      const recordId = parseId((params as Record<string, string>).id, what(def));
      if (!(await recordExists(deps.db, def, company.id, recordId)))
        throw notFound(what(def), recordId);
      const { data, total } = await listAttachments(deps.db, company.id, def.name, recordId, page);
      return readResponse({ request, set }, { data, meta: { total, ...page } });
    },
    {
      detail: doc(
        {
          operationId: `list${def.singular}Attachments`,
          summary: `List a ${what(def)}'s attachments`,
          description:
            "Metadata only, oldest first; the bytes are at /v1/attachments/{id}/content.",
          query: pageParsers,
          headers: ["IfNoneMatch"],
          refusals: ["invalid_query", "not_found"],
          responses: { 200: { description: "One page.", headers: ["ETag"] } },
        },
        readScopeOf(def),
      ),
      response: { 200: listEnvelope(AttachmentSchema, "AttachmentList") },
    },
  );
}

function memberRoutes(app: AdmittedApp, deps: AttachmentDeps): void {
  const member = "/v1/attachments/:id";
  app.get(
    member,
    async ({ company, token, request, params, set }) => {
      parseQuery(request.url, {});
      const {
        object_key: _key,
        company_id: _company,
        def: _def,
        ...attachment
      } = await attachmentFor(deps, company, token, params, "read");
      return readResponse({ request, set }, { data: attachment });
    },
    {
      detail: doc(
        {
          operationId: "getAttachment",
          summary: "An attachment's metadata",
          description: "Needs the read scope of the attachment's record's resource.",
          headers: ["IfNoneMatch"],
          refusals: ["invalid_query", "not_found"],
          responses: { 200: { description: "The attachment.", headers: ["ETag"] } },
        },
        ANY_READ,
      ),
      response: { 200: itemEnvelope(AttachmentSchema) },
    },
  );
  app.get(
    `${member}/content`,
    async ({ company, token, request, params, set }) => {
      parseQuery(request.url, {});
      const found = await attachmentFor(deps, company, token, params, "read");
      return contentResponse(deps.attachments, request, set, found);
    },
    {
      detail: doc(
        {
          operationId: "downloadAttachment",
          summary: "An attachment's bytes",
          description:
            "Streamed as stored, with its Content-Type, `Content-Disposition: attachment` (the " +
            "name in UTF-8, RFC 6266), an ETag of its SHA-256, `X-Content-Type-Options: nosniff` " +
            "and `Content-Security-Policy: sandbox`. One `Range: bytes=…` is answered 206.",
          refusals: ["invalid_query", "not_found", "range_not_satisfiable"],
          responses: {
            200: { description: "The bytes.", headers: ["ETag"], content: BYTES_OUT },
            206: { description: "The range asked for.", headers: ["ETag"], content: BYTES_OUT },
          },
        },
        ANY_READ,
      ),
    },
  );
  app.delete(
    member,
    ({ company, token, request, ctx, params, set }) =>
      attachmentDelete(deps, { company, token, request, ctx, params, set }, (ids) =>
        attachmentFor(deps, company, token, ids, "write"),
      ),
    {
      detail: doc(
        {
          operationId: "deleteAttachment",
          summary: "Delete an attachment",
          description:
            "Removes its row and its bytes for good (an attachment has no restore of its own).",
          query: writeParsers,
          headers: ["IdempotencyKey", "XDryRun"],
          refusals: [...WRITE_REFUSALS, "not_found"],
          responses: { 200: { description: "Deleted, or would be in a dry-run." } },
        },
        ANY_WRITE,
      ),
      response: {
        200: itemEnvelope(
          Type.Object(
            { id: Type.Integer(), deleted: Type.Boolean(), dry_run: Type.Boolean() },
            { additionalProperties: false, title: "AttachmentDelete" },
          ),
          "AttachmentDeleteResult",
        ),
      },
    },
  );
  app.post(
    `${member}/link`,
    async ({ company, token, request, params, set }) => {
      const found = await attachmentFor(deps, company, token, params, "read");
      const query = parseQuery(request.url, linkParsers);
      const expires = Math.floor(Date.now() / 1000) + (query.expires_in ?? MAX_LINK_SECONDS);
      const signature = deps.links.sign(found.id, expires);
      const origin = new URL(request.url).origin;
      set.status = 200;
      return {
        data: {
          url: `${origin}/v1/attachment-links/${found.id}?expires=${expires}&signature=${signature}`,
          expires_at: new Date(expires * 1000).toISOString(),
        },
      };
    },
    {
      detail: doc(
        {
          operationId: "linkAttachment",
          summary: "A signed link to an attachment's bytes",
          description:
            "A URL that serves the bytes (as the content route does) to anyone who has it, " +
            `without a token, for at most ${MAX_LINK_SECONDS / 60} minutes. Writes nothing.`,
          query: linkParsers,
          refusals: ["invalid_query", "not_found"],
          responses: { 200: { description: "The link." } },
        },
        ANY_READ,
      ),
      response: { 200: LinkResult },
    },
  );
}

/** GET /v1/attachment-links/{id}: a signed link's bytes, no token; a bad or expired link is 404. */
function linkRoute(deps: AttachmentDeps) {
  const parsers = { expires: textParam, signature: textParam };
  return new Elysia({ name: "attachment-links" }).get(
    "/v1/attachment-links/:id",
    async ({ request, params, set }) => {
      const query = parseQuery(request.url, parsers);
      const id = parseId(params.id, "attachment link");
      const expires = Number(query.expires);
      if (!deps.links.verify(id, expires, query.signature ?? ""))
        throw notFound("valid attachment link", id);
      const found = await findAttachment(deps.db, undefined, id);
      if (!found) throw notFound("attachment", id);
      return contentResponse(deps.attachments, request, set, found);
    },
    {
      detail: operationDetail({
        public: true,
        operationId: "downloadAttachmentLink",
        summary: "An attachment's bytes by its signed link",
        description: "What POST /v1/attachments/{id}/link answered; no token.",
        // Called at the URL that operation answers, never built by hand.
        extensions: { "x-url-from": "linkAttachment" },
        tags: TAGS,
        query: parsers,
        refusals: ["invalid_query", "not_found", "range_not_satisfiable"],
        responses: {
          200: { description: "The bytes.", headers: ["ETag"], content: BYTES_OUT },
          206: { description: "The range asked for.", headers: ["ETag"], content: BYTES_OUT },
        },
      }),
    },
  );
}

/** Every attachments route: one admitted app per attachable resource (its add-on), one for the members. */
export function attachmentRoutes(deps: AttachmentDeps) {
  const app = new Elysia({ name: "attachments" });
  for (const def of ATTACHABLE) {
    const records = admitted(`attachments:${def.name}`, def.addon, deps.admission);
    recordRoutes(records, def, deps);
    app.use(records);
  }
  const members = admitted("attachments:members", "api", deps.admission);
  memberRoutes(members, deps);
  return app.use(members).use(linkRoute(deps));
}
