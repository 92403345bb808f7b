// The keys of a company's custom fields of a resource defined `sensitive`: what ReadView.of
// (visibility.ts) hides besides the fields the definitions mark, as `custom_fields.<key>`. This is
// where custom fields plug in, answering from the company's definitions as reads hold them. Until a
// company can define custom fields, it has none.
import type { Executor } from "../db/client.ts";

const NONE: readonly string[] = Object.freeze([]);

export const sensitiveCustomKeys = async (
  _db: Executor,
  _companyId: number,
  _resource: string,
): Promise<readonly string[]> => NONE;
