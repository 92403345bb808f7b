// The API's collections as the SDK's generated map names them (sdk/src/generated/collections.ts,
// made from the served document by `bun run generate`): what the suites that run over every
// resource iterate, so a new resource is in each of them without an edit to the suite.
import { COLLECTIONS, type CollectionName } from "../../sdk/src/generated/collections.ts";

/** The collections whose records are created and changed (every one but the seeded lookups). */
export type RecordCollection = {
  [K in CollectionName]: (typeof COLLECTIONS)[K]["kind"] extends "records" ? K : never;
}[CollectionName];

export const RECORD_COLLECTIONS = (Object.keys(COLLECTIONS) as CollectionName[]).filter(
  (name): name is RecordCollection => COLLECTIONS[name].kind === "records",
);

/** The collection's path segment: `equipment` in /v1/equipment. */
export const segmentOf = (name: CollectionName): string =>
  COLLECTIONS[name].path.slice("/v1/".length);

/** The path segments of a collection's sub-collections: `rentals` in /v1/equipment/{id}/rentals. */
export const childrenOf = (name: CollectionName): string[] =>
  Object.values(COLLECTIONS[name].children);

/** Every collection's path, a sub-collection's under a member of its parent: /v1/equipment/{id}/rentals. */
export const COLLECTION_PATHS: readonly string[] = (
  Object.keys(COLLECTIONS) as CollectionName[]
).flatMap((name) => [
  COLLECTIONS[name].path,
  ...childrenOf(name).map((child) => `${COLLECTIONS[name].path}/{id}/${child}`),
]);
