// What the attachments' routes share: the store of their bytes, the signer of their links, and the
// upload's answer shape (docs/attachments.md).
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import type { LinkSigner } from "../attachments/links.ts";
import { AttachmentSchema } from "../attachments/rows.ts";
import type { AttachmentStore } from "../attachments/store.ts";
import { itemEnvelope } from "../http/envelopes.ts";
import type { RouteDeps } from "./route-context.ts";

export interface AttachmentDeps extends RouteDeps {
  attachments: AttachmentStore;
  links: LinkSigner;
}

export const TAGS = ["attachments"];

/** A 201 upload's answer, and its dry-run's 200 (no id, no created_at): one schema for both. */
export const UploadResult = itemEnvelope(
  Type.Object(
    {
      ...AttachmentSchema.properties,
      id: t.Union([Type.Integer(), t.Null()], { description: "null in a dry-run." }),
      created_at: t.Union([AttachmentSchema.properties.created_at, t.Null()]),
      dry_run: Type.Boolean(),
    },
    { additionalProperties: false, title: "AttachmentUpload" },
  ),
  "AttachmentUploadResult",
);
