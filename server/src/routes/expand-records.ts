// `expand` on a read: the references it names are read with the records (even when `fields` leaves
// them out), embedded, and what `fields` did not ask for is taken out again.
import type { Executor } from "../db/client.ts";
import type { ResourceDefinition, StoredRecord } from "../resources/definition.ts";
import { embedReferences } from "../resources/expand.ts";
import { expandables } from "../resources/fields.ts";
import type { ReadView } from "../resources/visibility.ts";

/** `fields` and the reference fields the expanded paths start from. */
export function withReferences(
  def: ResourceDefinition,
  fields: readonly string[],
  expand: readonly (readonly string[])[],
): string[] {
  const firsts = new Set(expand.map(([first]) => first));
  const references = expandables(def)
    .filter((reference) => firsts.has(reference.name))
    .map((reference) => reference.field);
  return [...new Set([...fields, ...references])];
}

/**
 * Embeds the expanded references (403 for a resource `view` may not read), then leaves only the
 * fields asked for (and the embedded records).
 */
export async function embedShown(
  db: Executor,
  def: ResourceDefinition,
  companyId: number,
  records: StoredRecord[],
  expand: readonly (readonly string[])[],
  fields: readonly string[] | undefined,
  view: ReadView,
): Promise<void> {
  await embedReferences(db, def, companyId, records, expand, view);
  if (!fields) return;
  const shown = new Set([...fields, ...expand.map(([first]) => first!)]);
  for (const record of records)
    for (const name of Object.keys(record)) if (!shown.has(name)) delete record[name];
}
