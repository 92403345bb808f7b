// The item keys of imported rows (docs/bulk-work.md): the same on every run of the same rows, from
// the SDK's import() and from the CLI's `erp import` alike, so either can finish what the other began.
import { DigestTable } from "./digest-table.ts";
import { hexOf, sha256 } from "./sha256.ts";

/** How an import writes its rows: creates, upserts by `external_id`, or updates by `id`. */
export type ImportMode = "create" | "upsert" | "update";

/** Members of an exported record that no create accepts: an export's rows re-import without them. */
const READ_ONLY: ReadonlySet<string> = new Set(["id", "created_at", "updated_at", "deleted_at"]);

type Json = Record<string, unknown>;

/** Bun's native SHA-256 where the SDK runs on Bun (a few times faster); the portable one elsewhere. */
const nativeHash = (
  globalThis as { Bun?: { SHA256?: { hash(text: string, into: Uint8Array): unknown } } }
).Bun?.SHA256;
const hash: (text: string, digest: Uint8Array) => void = nativeHash
  ? (text, digest) => void nativeHash.hash(text, digest)
  : sha256;

/**
 * The row's values by field as one unambiguous text, whatever order the members come in: fields
 * sorted, every part length-prefixed (a text as it is; anything else as JSON with its keys sorted).
 */
function contentText(content: Readonly<Json>): string {
  let text = "";
  for (const field of Object.keys(content).sort()) {
    const value = content[field];
    const part = typeof value === "string" ? `s${value}` : `j${JSON.stringify(sortKeys(value))}`;
    text += `${field.length}:${field}${part.length}:${part}`;
  }
  return text;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Json)[key])]),
  );
}

/**
 * What a row's key is made of, for a row given as an object (an SDK row, an NDJSON line): its
 * members but the read-only ones an export writes (`id`, `created_at`, `updated_at`, `deleted_at`);
 * in an update, the record it names (`id`, and `if_match` when given) apart.
 */
export function rowContent(row: Readonly<Json>, mode: ImportMode): Json {
  const values: Json = {};
  for (const [member, value] of Object.entries(row))
    if (!READ_ONLY.has(member) && !(mode === "update" && member === "if_match"))
      values[member] = value;
  return mode === "update"
    ? { values, names: {}, target: updateTarget(row) }
    : { values, names: {} };
}

/** The batch item a row given as an object is: its writable members (in an update, with its target first). */
export function rowBody(row: Readonly<Json>, mode: ImportMode): Json {
  const body: Json = mode === "update" ? updateTarget(row) : {};
  for (const [member, value] of Object.entries(row))
    if (!READ_ONLY.has(member) && member !== "if_match") body[member] = value;
  return body;
}

/** The record an update row names: its `id` (digits read as a number), and `if_match` when given. */
export function updateTarget(row: Readonly<Json>): Json {
  const { id, if_match: ifMatch } = row;
  return {
    id: typeof id === "string" && /^\d+$/.test(id) ? Number(id) : (id ?? null),
    ...(ifMatch === undefined ? {} : { if_match: ifMatch === null ? "" : String(ifMatch) }),
  };
}

/**
 * A row's key is a hash of the resource, the import's mode and the row's content (its values by
 * field: member order, column order and the file's name do not matter), then its occurrence among
 * identical rows (the second of two identical rows is a record of its own). Never its batch or its
 * position: a re-run after an abort, a crash or a lost journal, in batches of any composition, with
 * other rows edited, added or removed meanwhile, carries the same key for the same row, and the
 * server writes it at most once. An edited row gets a new key. The server keeps keys per company,
 * for 24 hours.
 */
export class ItemKeys {
  /** Content digest → identical rows seen so far (typed arrays: every row has an entry). */
  readonly #seen = new DigestTable(1);
  readonly #digest = new Uint8Array(32);
  readonly #prefix: string;

  /** `resource` is the collection's path segment (`workers`). */
  constructor(resource: string, mode: ImportMode) {
    this.#prefix = `${resource}\u0000${mode}\u0000`;
  }

  /** The next row's key, from what `rowContent` (or a file reader's own reading of its cells) made of it. */
  next(content: Readonly<Json>): string {
    const digest = this.#digest;
    hash(this.#prefix + contentText(content), digest);
    let slot = this.#seen.find(digest);
    if (slot < 0) slot = this.#seen.add(digest);
    const occurrence = this.#seen.value(slot, 0) + 1;
    this.#seen.set(slot, 0, occurrence);
    return `erp-row-${hexOf(digest)}-${occurrence}`;
  }
}
