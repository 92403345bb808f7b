-- Every text column declares utf8mb4 and its collation (db/columns.ts); the snapshot records the
-- declared types. The tables a database already holds (created with its default: latin1,
-- utf8mb4_general_ci, utf8mb4_0900_ai_ci...) are converted after the SQL migrations by
-- db/character-sets.ts, which the migrate step runs under the migration lease: one ALTER per table,
-- online where the engine allows, skipping what is converted already, one log line per table.
-- drizzle-kit wrote one ALTER per column here (a table copied once per column); this file runs nothing.
DO 0;
