// How the API matches the names of lookups (trades, equipment categories), so a client matches
// them the same way before it asks (an importer resolving "electrical " to the trade Electrical,
// or deciding that a name is missing): without surrounding white space, ignoring case; accents and
// other marks count ("Électrique" and "Electrique" are two names). The server stores a name
// trimmed and refuses a second live one with the same key (409 unique_violation); its list takes
// `name=` to find one by this rule.

/** The key two lookup names share exactly when the API holds them to be the same name. */
export function lookupNameKey(name: string): string {
  return name.trim().toLowerCase();
}
