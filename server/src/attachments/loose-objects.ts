// Objects in the store that no attachment row owns (docs/attachments.md, "After a crash"). An
// upload's key is written down before its first byte is stored and crossed out in the transaction
// that commits its row; a delete writes its key down with the row's delete and crosses it out once
// the object is removed. A key left written down is a server that died in between: the sweep
// removes its object (and a directory store's temporary file), at start and every hour, once the
// key is older than any upload in progress can be.
import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client.ts";
import { runStatement, selectRows } from "../db/sql.ts";
import type { AttachmentStore } from "./store.ts";

/** How old a loose key must be before the sweep takes it: longer than any upload runs. */
export const LOOSE_AFTER_HOURS = 24;

/** Writes `key` down as loose: nothing owns what the store may hold under it. */
export async function markLoose(db: Executor, key: string): Promise<void> {
  await runStatement(db, sql`INSERT INTO loose_objects (object_key) VALUES (${key})`);
}

/**
 * In a write's transaction: true while `key` is still loose, locked until the commit, so that the
 * sweep cannot take it meanwhile. False when the sweep took it (the upload outlived its age).
 */
export async function holdLoose(db: Executor, key: string): Promise<boolean> {
  const rows = await selectRows(
    db,
    sql`SELECT object_key FROM loose_objects WHERE object_key = ${key} FOR UPDATE`,
  );
  return rows.length > 0;
}

/** The statement a write's plan crosses a key out with (its row now owns the object). */
export const crossOutStatement = (key: string) => ({
  text: "DELETE FROM loose_objects WHERE object_key = ?",
  values: [key],
});

/** The statement a delete's plan writes its object's key down with. */
export const markStatement = (key: string) => ({
  text: "INSERT INTO loose_objects (object_key) VALUES (?)",
  values: [key],
});

/** Crosses `key` out now: the object under it is gone. */
const crossOut = (db: Executor, key: string) =>
  runStatement(db, sql`DELETE FROM loose_objects WHERE object_key = ${key}`);

/**
 * Removes what the store holds under `key`, then crosses it out; when the store fails the key stays
 * written down and the sweep tries again later. Never throws.
 */
export async function discard(db: Executor, store: AttachmentStore, key: string): Promise<void> {
  try {
    await store.remove(key);
    await crossOut(db, key);
  } catch {
    // Left for the sweep.
  }
}

/**
 * Removes the objects of keys loose for `hours`, a bounded batch a round; how many. Each key is
 * locked while its object is removed, and crossed out in the same transaction: an upload that
 * commits meanwhile waits, then finds its key gone and keeps nothing; a store that fails leaves it.
 */
export async function sweepLooseObjects(
  db: Database,
  store: AttachmentStore,
  hours = LOOSE_AFTER_HOURS,
  batch = 1_000,
): Promise<number> {
  const keys = await selectRows<{ object_key: string }>(
    db,
    sql`SELECT object_key FROM loose_objects
      WHERE since < NOW(3) - INTERVAL ${sql.raw(String(hours))} HOUR LIMIT ${batch}`,
  );
  let swept = 0;
  for (const { object_key: key } of keys) {
    await db.transaction(async (tx) => {
      if (!(await holdLoose(tx, key))) return;
      await store.remove(key);
      await crossOut(tx, key);
      swept += 1;
    });
  }
  return swept;
}
