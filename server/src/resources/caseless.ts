// How a caseless text field (a lookup's name) is stored and compared (docs/concepts.md, "Lookups"):
// without its surrounding white space, and among the live records ignoring case, so `Electrical`,
// ` electrical` and `ELECTRICAL ` are one name. Accents and other marks count (`Électrique` and
// `Electrique` are two names), as they do in every unique value. The database holds the same key in
// the table's `<field>_key` column (db/schema.ts, lookupTable), the name in lower case compared byte
// for byte; the SDK's `lookupNameKey` is this function, so a client matches names as the server does.
import type { FieldSpec } from "./definition.ts";

/** The value as stored: without surrounding white space (Unicode's, as String.prototype.trim). */
export const caselessText = (value: string): string => value.trim();

/** The value as compared: stored form, in lower case. */
export const caselessKey = (value: string): string => value.trim().toLowerCase();

/** True for a text field stored and compared so. */
export const isCaseless = (spec: FieldSpec | undefined): boolean =>
  spec?.type === "text" && spec.caseless === true;
