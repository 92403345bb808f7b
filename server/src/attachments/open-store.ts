// The store ATTACHMENTS_STORE names: `s3://bucket/prefix`, else a directory (by default
// `.data/attachments` beside the server's other data).
import path from "node:path";
import { DirectoryStore } from "./directory-store.ts";
import { parseS3Url, S3Store } from "./s3-store.ts";
import type { AttachmentStore } from "./store.ts";

export const DEFAULT_DIRECTORY = ".data/attachments";

export function openStore(env: Record<string, string | undefined> = process.env): AttachmentStore {
  const where = env.ATTACHMENTS_STORE?.trim() || DEFAULT_DIRECTORY;
  if (where.startsWith("s3://")) return new S3Store(parseS3Url(where), env);
  return new DirectoryStore(path.resolve(where));
}
