/**
 * Typed client of the Construction ERP API for Bun, Node, Deno and browsers.
 *
 * ```ts
 * import { ErpClient } from "@erp/sdk";
 * const erp = new ErpClient({ baseUrl: "https://erp.example.com", token: "erp_…" });
 * for await (const project of erp.projects.list({ status: "ACTIVE" })) console.log(project.name);
 * ```
 * @module
 */
export { type ClientOptions, ErpClient } from "./src/client.ts";
export * from "./src/errors.ts";
export * from "./src/pagination.ts";
export { ApiPromise, type ApiResult, type ResponseInfo } from "./src/core/api-promise.ts";
export type {
  ConditionalWriteOptions,
  RequestOptions,
  WriteOptions,
} from "./src/core/request-options.ts";
export type {
  BatchResult,
  Created,
  CreateResult,
  DeleteResult,
  DryRunCreated,
  FieldChange,
  Picked,
  RecordRef,
  UpdateResult,
  UpsertResult,
} from "./src/core/results.ts";
export type { GroupValue, Report, ReportQuery, ReportRow } from "./src/core/report.ts";
export type { FetchLike } from "./src/core/transport.ts";
// The client's own retry policy, for callers that retry on their own terms (the CLI's import).
export { isRetryable, retryDelayMs } from "./src/core/retries.ts";
export type * from "./src/generated/types.ts";
export {
  type CollectionClients,
  type CollectionName,
  type CollectionSpec,
  COLLECTIONS,
  type FieldKind,
} from "./src/generated/collections.ts";
// SHA-256 digests with a few numbers each in typed arrays: the import's occurrence counts (the CLI's
// repeated rows too).
export { DigestTable } from "./src/import/digest-table.ts";
export { ImportRun } from "./src/import/import-run.ts";
export type {
  ImportItem,
  ImportOptions,
  ImportProblem,
  ImportRead,
  ImportReader,
  ImportResult,
  ImportStatus,
  ImportSummary,
} from "./src/import/import-types.ts";
export {
  type ImportMode,
  ItemKeys,
  rowBody,
  rowContent,
  updateTarget,
} from "./src/import/item-keys.ts";
export { type ImportJournal, MemoryJournal } from "./src/import/journal.ts";
export { lookupNameKey } from "./src/lookup-names.ts";
export type {
  BatchOptions,
  BatchUpdateItem,
  GetOptions,
  ImportRows,
  ImportSpec,
  CustomFieldFilter,
  CustomFieldFilters,
  ListParams,
  ListQuery,
  PageParams,
  PageQuery,
  ResourceClient,
} from "./src/resources/resource-client.ts";
export { verifyWebhook, type VerifyWebhookOptions } from "./src/webhooks.ts";
export type { TokensClient } from "./src/resources/tokens-client.ts";
export type { CustomFieldsClient } from "./src/resources/custom-fields-client.ts";
export type {
  AttachmentData,
  AttachmentDownload,
  AttachmentsClient,
  RecordAttachments,
  UploadOptions,
} from "./src/resources/attachments-client.ts";
export type {
  EventPage,
  EventQuery,
  EventsClient,
  FollowOptions,
} from "./src/resources/events-client.ts";
export {
  type ReplayFrom,
  WebhookEndpointsClient,
} from "./src/resources/webhook-endpoints-client.ts";
