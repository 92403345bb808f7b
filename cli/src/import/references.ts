// Reference columns by name: a spreadsheet says `trade,Electrician` where the API takes `trade_id`
// (ids differ per company). Which columns name which collection, and by which fields (a record's
// name or title, or its external_id), comes from the resource's import columns in the SDK's
// collection table. Each list is read once, when the first row needs it, on after_id without a total.
// A name that names nothing is told with the closest names there are; with --create-missing, a
// missing trade or equipment category is created instead (docs/cli.md, "Missing trades and
// categories"), once, when the first row that needs it is read, before that row's batch goes.
import {
  COLLECTIONS,
  type CollectionName,
  type CollectionSpec,
  ErpError,
  type ErpClient,
  lookupNameKey,
} from "@erp/sdk";
import { closestNames } from "./closest.ts";

type Reference = CollectionSpec["import"]["references"][string];

interface Named {
  id: number;
  [field: string]: unknown;
}

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** A lookup value an import created (or, in a dry-run, would create). */
export interface CreatedLookup {
  /** The reference column that names it: `trade`, `category`. */
  column: string;
  name: string;
  /** Null in a dry-run. */
  id: number | null;
}

/** `--create-missing`: the reference columns whose missing names become new lookup values. */
export interface CreateMissing {
  columns: ReadonlySet<string>;
  dryRun: boolean;
  /** Told of each value once, when it is created (or found to be creatable in a dry-run). */
  onCreate(created: CreatedLookup): void;
}

/** A referenced collection as read: ids by name (folded as the API folds them), and the names to suggest. */
interface Known {
  ids: Map<string, number[]>;
  names: string[];
}

/** What a missing name became: a new id (null in a dry-run), or why it could not be created. */
type Made = { id: number | null } | { error: FieldError };

/** The reference columns that may name a lookup (trades, equipment categories): what --create-missing takes. */
export const LOOKUP_COLUMNS: readonly string[] = [
  ...new Set(
    Object.values(COLLECTIONS as Record<string, CollectionSpec>).flatMap((spec) =>
      Object.values(spec.import.references)
        .filter((reference) => collectionAt(reference.path)[1].kind === "lookup")
        .map((reference) => reference.column),
    ),
  ),
];

export class ReferenceResolver {
  readonly #known = new Map<string, Promise<Known>>();
  readonly #made = new Map<string, Promise<Made>>();
  /** The lookup values this run created (a dry-run: would create), in the order the rows needed them. */
  readonly created: CreatedLookup[] = [];

  constructor(
    private readonly erp: ErpClient,
    private readonly spec: CollectionSpec,
    private readonly createMissing?: CreateMissing,
  ) {}

  /**
   * The id each named reference stands for (`{trade_id: "Electrician"}` → `{trade_id: 4}`), or
   * why a name names nothing. A name a dry-run would create is left out of the ids.
   */
  async resolve(
    names: Readonly<Record<string, string>>,
  ): Promise<{ ids: Record<string, number>; errors: FieldError[] }> {
    const ids: Record<string, number> = {};
    const errors: FieldError[] = [];
    for (const [field, name] of Object.entries(names)) {
      const reference = this.spec.import.references[field]!;
      const known = await this.#lookup(field, reference);
      const found = known.ids.get(lookupNameKey(name)) ?? [];
      if (found.length === 1) ids[field] = found[0]!;
      else if (found.length === 0 && this.createMissing?.columns.has(reference.column)) {
        const made = await this.#create(field, reference, name, known);
        if ("error" in made) errors.push(made.error);
        else if (made.id !== null) ids[field] = made.id;
      } else errors.push(notFound(field, reference, name, found.length, known));
    }
    return { ids, errors };
  }

  #lookup(field: string, reference: Reference): Promise<Known> {
    let known = this.#known.get(field);
    if (!known) {
      known = (async () => {
        const byName: Known = { ids: new Map(), names: [] };
        for await (const record of this.#records(reference)) {
          for (const [index, key] of reference.match.entries()) {
            const value = record[key];
            if (typeof value !== "string" || value === "") continue;
            if (index === 0) byName.names.push(value);
            const normal = lookupNameKey(value);
            const ids = byName.ids.get(normal) ?? [];
            if (!ids.includes(record.id)) byName.ids.set(normal, [...ids, record.id]);
          }
        }
        return byName;
      })();
      this.#known.set(field, known);
    }
    return known;
  }

  /** Every record of the referenced collection, with the fields that name it. */
  #records(reference: Reference): AsyncIterable<Named> {
    const [property, spec] = collectionAt(reference.path);
    const client = this.erp[property] as unknown as {
      list(query: Record<string, unknown>): AsyncIterable<Named>;
    };
    return client.list({
      limit: 100,
      total: false,
      ...(spec.kind === "records" ? { fields: reference.match } : {}),
    });
  }

  /** The missing name created once, however many rows name it (the first row waits for it). */
  #create(field: string, reference: Reference, name: string, known: Known): Promise<Made> {
    const key = `${field}\u0000${lookupNameKey(name)}`;
    let made = this.#made.get(key);
    if (!made) {
      made = this.#make(reference, name.trim(), known);
      this.#made.set(key, made);
    }
    return made;
  }

  /**
   * Creates the value (a dry-run asks the API whether it could). Exactly once across runs: the API
   * holds one live value per name, so when an earlier run's create went in but its answer was lost,
   * or someone created it meanwhile, the create is 409 and the value is the one the name finds.
   */
  async #make(reference: Reference, name: string, known: Known): Promise<Made> {
    const { dryRun, onCreate } = this.createMissing!;
    const [property, spec] = collectionAt(reference.path);
    const client = this.erp[property] as unknown as {
      create(
        input: Record<string, unknown>,
        options: { dryRun: boolean },
      ): Promise<{ id: number | null }>;
      list(query: Record<string, unknown>): AsyncIterable<Named>;
    };
    const title = spec.required[0] ?? "name";
    let id: number | null;
    try {
      id = (await client.create({ [title]: name }, { dryRun })).id;
    } catch (error) {
      if (!(error instanceof ErpError)) throw error;
      const held =
        error.code === "unique_violation" ? await this.#holder(client, title, name) : undefined;
      if (held === undefined)
        return {
          error: {
            field: reference.column,
            code: error.code,
            message: `no ${reference.column} "${name}", and it cannot be created: ${error.message}`,
          },
        };
      id = held;
    }
    if (id !== null) {
      known.ids.set(lookupNameKey(name), [id]);
      known.names.push(name);
    }
    const created = { column: reference.column, name, id };
    this.created.push(created);
    onCreate(created);
    return { id };
  }

  /** The live value a name finds (`?name=` matches as the API compares names). */
  async #holder(
    client: { list(query: Record<string, unknown>): AsyncIterable<Named> },
    title: string,
    name: string,
  ): Promise<number | undefined> {
    for await (const record of client.list({ [title]: name, limit: 1, total: false }))
      return record.id;
    return undefined;
  }
}

/** The collection a reference's path names, with its SDK property. */
function collectionAt(path: string): [CollectionName, CollectionSpec] {
  return (Object.entries(COLLECTIONS) as [CollectionName, CollectionSpec][]).find(
    ([, candidate]) => candidate.path === path,
  )!;
}

/** A name that names no record (with the closest names there are), or several. */
function notFound(
  field: string,
  reference: Reference,
  name: string,
  count: number,
  known: Known,
): FieldError {
  const column = reference.column;
  if (count > 1)
    return {
      field: column,
      code: "ambiguous_reference",
      message:
        `${count} records of ${reference.path.split("/").at(-1)} have the ` +
        `${reference.match.join(" or ")} "${name}"; give ${field} or an external_id instead`,
    };
  const near = closestNames(name, new Set(known.names), 3, lookupNameKey);
  const meant = near.length > 0 ? `; did you mean ${orList(near)}?` : "";
  return { field: column, code: "unknown_reference", message: `no ${column} "${name}"${meant}` };
}

/** `a`, `a or b`, `a, b or c`. */
function orList(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
