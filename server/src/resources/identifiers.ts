// What an id from another system (an external_id) may contain: at least one character and no
// control characters (C0 with NUL, tab and line breaks, DEL, C1) nor bidirectional-text controls,
// which would let one id print as another. One pattern, read by validation and by the schemas.

/** As a JSON Schema pattern (ECMA-262 syntax that needs no `u` flag). */
export const IDENTIFIER_PATTERN =
  "^[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]+$";

const IDENTIFIER = new RegExp(IDENTIFIER_PATTERN);

export const isIdentifierText = (text: string): boolean => IDENTIFIER.test(text);
