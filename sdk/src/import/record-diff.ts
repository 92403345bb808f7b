// An update import sends each row's fields that differ from its record as it is now, so rows edited
// in a spreadsheet change exactly their records and a row equal to its record is not sent at all
// (no write, no event). The records of a batch are read before it goes, in pages of the collection
// on after_id: an export's rows come in id order, so a batch of 500 rows costs about five reads.

type Json = Record<string, unknown>;

/** Records a page of the collection holds at most. */
const PAGE = 100;

/** One page of live records from the first id above `afterId`, in id order. */
export type ReadPage = (afterId: number, limit: number) => Promise<readonly Json[]>;

/** Whether a sent value is the stored one: money and ids compare as numbers (`45` is `"45.00"`). */
function same(hint: string | undefined, sent: unknown, stored: unknown): boolean {
  const empty = (value: unknown) => value === null || value === undefined || value === "";
  if (empty(sent) || empty(stored)) return empty(sent) && empty(stored);
  if (String(sent) === String(stored)) return true;
  const numeric = hint === "id" || hint?.startsWith("amount") === true;
  const number = /^-?\d+(\.\d+)?$/;
  return (
    numeric &&
    number.test(String(sent)) &&
    number.test(String(stored)) &&
    Number(sent) === Number(stored)
  );
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The custom values of a body that differ from the record's (a PATCH merges them per key), or
 * undefined when none does. Their types are the company's, not in the hints: a value compares as
 * a number when both sides are plain numbers (`45` is money's `"45.00"`, a decimal's `"12.5"` is
 * `"12.50"`).
 */
function changedCustomFields(sent: Json, stored: unknown): Json | undefined {
  const record = isObject(stored) ? stored : {};
  const changed: Json = {};
  for (const [key, value] of Object.entries(sent))
    if (!same("amount", value, record[key])) changed[key] = value;
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/**
 * Narrows each body to its `id`, `if_match` and the fields that differ from the record; the
 * indexes of the bodies that differ in nothing (not to be sent) come back. A body whose record is
 * not found is left whole: the API refuses it (404). Bodies of the same record are diffed in
 * order, each against the record as the ones before it leave it. `hints` are the update fields'
 * hints (`amount, …`, `id`), which say what compares as a number.
 */
export async function narrowUpdates(
  bodies: Json[],
  hints: Readonly<Record<string, string>>,
  readPage: ReadPage,
): Promise<Set<number>> {
  const records = await readRecords(
    bodies.flatMap((body) => (typeof body.id === "number" ? [body.id] : [])),
    readPage,
  );
  const unchanged = new Set<number>();
  bodies.forEach((body, index) => {
    const { id, if_match: ifMatch, ...fields } = body;
    const record = typeof id === "number" ? records.get(id) : undefined;
    if (!record) return;
    const changed: Json = {};
    for (const [field, value] of Object.entries(fields)) {
      if (field === "custom_fields" && isObject(value)) {
        const custom = changedCustomFields(value, record.custom_fields);
        if (custom) changed.custom_fields = custom;
      } else if (!same(hints[field], value, record[field])) changed[field] = value;
    }
    if (Object.keys(changed).length === 0) unchanged.add(index);
    bodies[index] = { id, ...(ifMatch === undefined ? {} : { if_match: ifMatch }), ...changed };
    const { custom_fields: custom, ...rest } = changed;
    Object.assign(record, rest);
    if (isObject(custom))
      record.custom_fields = {
        ...(isObject(record.custom_fields) ? record.custom_fields : {}),
        ...custom,
      };
  });
  return unchanged;
}

/** The live records with these ids, read in pages from each id not yet found. */
async function readRecords(ids: readonly number[], readPage: ReadPage): Promise<Map<number, Json>> {
  const wanted = [...new Set(ids)].sort((a, b) => a - b);
  const found = new Map<number, Json>();
  let next = 0;
  while (next < wanted.length) {
    const records = await readPage(wanted[next]! - 1, PAGE);
    for (const record of records) found.set(Number(record.id), record);
    const last = records.length > 0 ? Number(records[records.length - 1]!.id) : Infinity;
    // Ids up to the page's last are settled (found, or not live); the next page starts at the first beyond it.
    while (next < wanted.length && wanted[next]! <= last) next++;
    if (records.length < PAGE) break;
  }
  return found;
}
