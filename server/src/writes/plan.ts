// What a write will change, gathered in memory while it decides: the statements that write its
// records, the record changes its events tell, how each resource's live count moves, and the batch
// item keys it binds. Nothing of it reaches the database before the commit (writes/commit.ts).
import { getTableName } from "drizzle-orm";
import type { Statement } from "../db/write-transaction.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { RESOURCES } from "../resources/registry.ts";
import type { RecordChange } from "../events/changes.ts";
import type { NewBinding } from "./item-keys.ts";

/** A change and the item key its write carried, if any (the event names it). */
export type PlannedChange = RecordChange & { key?: string };

const COUNTED = new Set(RESOURCES.map((def) => def.name));

export class WritePlan {
  readonly statements: Statement[] = [];
  /** Tables this write inserts records into, with ids from the process's id blocks. */
  readonly insertedTables = new Set<string>();
  readonly changes: PlannedChange[] = [];
  /** Live records added (or removed) per counted resource. */
  readonly counts = new Map<string, number>();
  readonly bindings: NewBinding[] = [];
  /** Item keys found bound past the replay window: their rows make way for the new ones. */
  readonly expiredKeys: string[] = [];
  /** Rows updated only as they were read (writes/row-versions.ts, rowKey). */
  readonly guarded: string[] = [];

  /** A statement that inserts new records of `def`. */
  insert(def: ResourceDefinition, statement: Statement): void {
    this.statements.push(statement);
    this.insertedTables.add(getTableName(def.table));
  }

  /** Counts `delta` live records of `def` (only top-level resources have a live count). */
  count(def: ResourceDefinition, delta: number): void {
    if (COUNTED.has(def.name)) this.counts.set(def.name, (this.counts.get(def.name) ?? 0) + delta);
  }

  get writes(): boolean {
    return this.statements.length > 0 || this.changes.length > 0 || this.bindings.length > 0;
  }
}
