// The text columns of the schema (db/schema.ts takes its text builders from here, never from
// drizzle): each states its character set and collation itself, in the migrations drizzle-kit
// writes, so whatever the database's default (latin1 on MariaDB's compiled defaults and MySQL 5.7,
// utf8mb4_0900_ai_ci on MySQL 8) every table stores what a person types: accents, CJK, emoji.
import {
  customType,
  char as mysqlChar,
  mediumtext as mysqlMediumtext,
  text as mysqlText,
  varchar as mysqlVarchar,
} from "drizzle-orm/mysql-core";

export const CHARACTER_SET = "utf8mb4";
/**
 * Text compared as people read it: case and accents aside (searches, sorting, the other indexes).
 * A Unicode collation that MySQL 8 and MariaDB both have; `q` names it too (resources/lists.ts).
 */
export const TEXT_COLLATION = "utf8mb4_unicode_ci";
/**
 * Unique values, compared byte for byte: `ABC` and `abc`, `cafe` and `café`, two emoji are
 * distinct. The collation pads spaces on MariaDB and MySQL 8 alike: values differing only in
 * trailing spaces are equal (writes/unique-values.ts compares them so).
 */
export const EXACT_COLLATION = "utf8mb4_bin";

/** What a column's SQL type ends with: its character set and collation. */
export const declaration = (collation: string): string =>
  `CHARACTER SET ${CHARACTER_SET} COLLATE ${collation}`;

/**
 * The builder with its column's SQL type extended by the declaration. drizzle has no column
 * collation, so the column states it in its type, which drizzle-kit writes into the migrations.
 */
function declared<B>(builder: B, collation: string): B {
  const buildable = builder as unknown as { build(table: unknown): { getSQLType(): string } };
  const build = buildable.build.bind(builder);
  buildable.build = (table) => {
    const column = build(table);
    const type = column.getSQLType();
    column.getSQLType = () => `${type} ${declaration(collation)}`;
    return column;
  };
  return builder;
}

type Builder = (...args: unknown[]) => unknown;
const withCollation = <F>(make: F, collation = TEXT_COLLATION): F =>
  ((...args: unknown[]) => declared((make as Builder)(...args), collation)) as F;

// drizzle's text builders, each declaring utf8mb4 and the text collation.
export const varchar = withCollation(mysqlVarchar);
export const char = withCollation(mysqlChar);
export const text = withCollation(mysqlText);
export const mediumtext = withCollation(mysqlMediumtext);

/** A text column whose values are unique: compared exactly (EXACT_COLLATION). */
export function exactText<N extends string>(name: N, length: number) {
  return declared(mysqlVarchar(name, { length }), EXACT_COLLATION);
}

/**
 * A JSON object stored as text (a record's custom field values, resources/custom-fields.ts): text
 * rather than the JSON type, which MariaDB keeps as LONGTEXT and MySQL 8 in its own binary form, so
 * both hand back the same text; read back as the object, NULL as none.
 */
const jsonObjectType = customType<{ data: Record<string, unknown>; driverData: string }>({
  dataType: () => "mediumtext",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) =>
    (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>,
});

export function jsonObject<N extends string>(name: N) {
  return declared(jsonObjectType(name), EXACT_COLLATION);
}
