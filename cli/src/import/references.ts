// Reference columns by name: a spreadsheet says `trade,Electrician` where the API takes `trade_id`
// (ids differ per company). Which columns name which collection, and by which fields (a record's
// name or title, or its external_id), comes from the resource's import columns in the SDK's
// collection table. Each list is read once, when the first row needs it, on after_id without a total.
import { COLLECTIONS, type CollectionName, type CollectionSpec, type ErpClient } from "@erp/sdk";

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

export class ReferenceResolver {
  readonly #names = new Map<string, Promise<Map<string, number[]>>>();

  constructor(
    private readonly erp: ErpClient,
    private readonly spec: CollectionSpec,
  ) {}

  /**
   * The id each named reference stands for (`{trade_id: "Electrician"}` → `{trade_id: 4}`), or
   * why a name names nothing.
   */
  async resolve(
    names: Readonly<Record<string, string>>,
  ): Promise<{ ids: Record<string, number>; errors: FieldError[] }> {
    const ids: Record<string, number> = {};
    const errors: FieldError[] = [];
    for (const [field, name] of Object.entries(names)) {
      const reference = this.spec.import.references[field]!;
      const found = (await this.#lookup(field, reference)).get(name.trim().toLowerCase()) ?? [];
      const what = reference.path.split("/").at(-1)!;
      if (found.length === 1) ids[field] = found[0]!;
      else
        errors.push({
          field: reference.column,
          code: found.length === 0 ? "unknown_reference" : "ambiguous_reference",
          message:
            found.length === 0
              ? `no record of ${what} has the ${reference.match.join(" or ")} "${name}"`
              : `${found.length} records of ${what} have the ${reference.match.join(" or ")} ` +
                `"${name}"; give ${field} or an external_id instead`,
        });
    }
    return { ids, errors };
  }

  #lookup(field: string, reference: Reference): Promise<Map<string, number[]>> {
    let names = this.#names.get(field);
    if (!names) {
      names = (async () => {
        const byName = new Map<string, number[]>();
        for await (const record of this.#records(reference)) {
          for (const key of reference.match) {
            const value = record[key];
            if (typeof value !== "string" || value === "") continue;
            const normal = value.trim().toLowerCase();
            const ids = byName.get(normal) ?? [];
            if (!ids.includes(record.id)) byName.set(normal, [...ids, record.id]);
          }
        }
        return byName;
      })();
      this.#names.set(field, names);
    }
    return names;
  }

  /** Every record of the referenced collection, with the fields that name it. */
  #records(reference: Reference): AsyncIterable<Named> {
    const [property, spec] = (
      Object.entries(COLLECTIONS) as [CollectionName, CollectionSpec][]
    ).find(([, candidate]) => candidate.path === reference.path)!;
    const client = this.erp[property] as unknown as {
      list(query: Record<string, unknown>): AsyncIterable<Named>;
    };
    return client.list({
      limit: 100,
      total: false,
      ...(spec.kind === "records" ? { fields: reference.match } : {}),
    });
  }
}
