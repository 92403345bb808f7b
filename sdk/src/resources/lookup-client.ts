// Read-only lookup lists (trades, equipment categories): list and listPage of the generic client.
import type { ResourceClient } from "./resource-client.ts";

/** A read-only, seeded list of `{id, name}` records. */
export type LookupClient<R> = Pick<ResourceClient<R, never, never, Record<never, never>>, "list" | "listPage">;
