// The keys of a company's custom fields defined `sensitive`, by resource: what ReadView.of
// (visibility.ts) hides besides the fields the definitions mark, as `custom_fields.<key>`. This is
// where custom fields plug in: they answer it from what they hold of the company's definitions,
// the same array for as long as those do not change (ReadView keeps what it decided per array).
// Until a company can define custom fields, it has none.
import type { ResourceDefinition } from "./definition.ts";

const NONE: readonly string[] = Object.freeze([]);

export const sensitiveCustomKeys = (
  _companyId: number,
  _def: ResourceDefinition,
): readonly string[] => NONE;
