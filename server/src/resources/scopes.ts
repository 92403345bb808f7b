// The scopes a token may be given (docs/tokens.md): each resource's read, write and sensitive scope,
// the feed's, the webhooks', the usage's, the tokens' and the lookups' own, then the shorthands; and the
// scope each operation of a resource needs, which its route declares and every other way its records
// leave (resources/visibility.ts) reads.
import { SHORTHANDS } from "../auth/scopes.ts";
import type { Operation, ResourceDefinition } from "./definition.ts";
import { RESOURCES } from "./registry.ts";

/** The read scopes of what is not a resource; with the resources' they are "any read scope". */
export const OTHER_READ_SCOPES = ["events:read", "webhooks:read", "usage:read"] as const;

/** What writing a lookup (a trade, an equipment category) needs; reading one needs any read scope. */
export const LOOKUPS_WRITE = "lookups:write";

/**
 * What reading or writing a definition's sensitive fields needs besides its read or write scope:
 * its resource's sensitive scope (a sub-resource's is its parent's).
 */
export const sensitiveScope = (def: ResourceDefinition): string =>
  `${(def.parent?.resource ?? def).name}:sensitive`;

/** What writing a company's custom field definitions needs; reading them needs any read scope. */
export const CUSTOM_FIELDS_WRITE = "custom_fields:write";

/** Any read scope: each resource's, the other read scopes', or a write scope that implies reading. */
export const ANY_READ_SCOPES: readonly string[] = [
  ...RESOURCES.map((resource) => `${resource.name}:read`),
  ...OTHER_READ_SCOPES,
];

/** Every scope an operation may need. */
export const CONCRETE_SCOPES: readonly string[] = [
  ...RESOURCES.flatMap((def) => [`${def.name}:read`, `${def.name}:write`, sensitiveScope(def)]),
  ...OTHER_READ_SCOPES,
  "webhooks:write",
  "tokens:write",
  LOOKUPS_WRITE,
  CUSTOM_FIELDS_WRITE,
];

/** What a token may be given: every scope, and the shorthands for several. */
export const GRANTABLE_SCOPES: readonly string[] = [...CONCRETE_SCOPES, ...SHORTHANDS];

/**
 * The scopes an operation of this definition accepts, any one of them: its resource's read or
 * write scope (a sub-resource's is its parent's); a lookup is read with any read scope (or its
 * write scope) and written with `lookups:write`.
 */
export function operationScope(def: ResourceDefinition, operation: Operation): string[] {
  const reads = operation === "list" || operation === "get" || operation === "aggregate";
  if (def.lookup)
    return reads
      ? [
          ...RESOURCES.map((resource) => `${resource.name}:read`),
          ...OTHER_READ_SCOPES,
          LOOKUPS_WRITE,
        ]
      : [LOOKUPS_WRITE];
  return [`${(def.parent?.resource ?? def).name}:${reads ? "read" : "write"}`];
}
