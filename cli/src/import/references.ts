// Reference columns by name: a CSV may say `trade,Electrician` instead of `trade_id,4` (ids differ per
// company), `category` for an equipment category, `client` for a client by name or external_id.
// Each list is read once, when the first row needs it.
import type { ErpClient } from "../../../sdk/mod.ts";

interface Target {
  /** The field the API takes. */
  field: string;
  /** Where the names are listed. */
  list: (erp: ErpClient) => AsyncIterable<{ id: number; name?: string; external_id?: string | null }>;
  what: string;
}

const TARGETS: Record<string, Target> = {
  trade: { field: "trade_id", what: "trade", list: (erp) => erp.trades.list({ limit: 100 }) },
  category: { field: "category_id", what: "equipment category", list: (erp) => erp.equipmentCategories.list({ limit: 100 }) },
  client: { field: "client_id", what: "client", list: (erp) => erp.clients.list({ limit: 100, fields: ["name", "external_id"] }) },
  project: { field: "project_id", what: "project", list: (erp) => erp.projects.list({ limit: 100, fields: ["name", "external_id"] }) },
};

export interface ResolvedRow {
  body: Record<string, unknown>;
  errors: { field: string; code: string; message: string }[];
}

export class ReferenceResolver {
  readonly #names = new Map<string, Promise<Map<string, number[]>>>();

  constructor(private readonly erp: ErpClient) {}

  /** The body with each reference column replaced by its `_id` field, or why a name names nothing. */
  async resolve(body: Record<string, unknown>): Promise<ResolvedRow> {
    const errors: ResolvedRow["errors"] = [];
    const resolved = { ...body };
    for (const [column, target] of Object.entries(TARGETS)) {
      if (!(column in body)) continue;
      delete resolved[column];
      const value = body[column];
      if (value === null || value === undefined || value === "") continue;
      if (target.field in body) {
        errors.push({ field: column, code: "invalid_value", message: `give either ${column} or ${target.field}, not both` });
        continue;
      }
      const ids = (await this.#lookup(column, target)).get(String(value).trim().toLowerCase()) ?? [];
      if (ids.length === 1) resolved[target.field] = ids[0];
      else errors.push({
        field: column,
        code: ids.length === 0 ? "unknown_reference" : "ambiguous_reference",
        message: ids.length === 0 ? `no ${target.what} is named "${String(value)}"` : `${ids.length} ${target.what}s are named "${String(value)}"; use ${target.field} or an external_id`,
      });
    }
    return { body: resolved, errors };
  }

  #lookup(column: string, target: Target): Promise<Map<string, number[]>> {
    let names = this.#names.get(column);
    if (!names) {
      names = (async () => {
        const byName = new Map<string, number[]>();
        const add = (key: string | null | undefined, id: number): void => {
          if (!key) return;
          const normal = key.trim().toLowerCase();
          const ids = byName.get(normal) ?? [];
          if (!ids.includes(id)) byName.set(normal, [...ids, id]);
        };
        for await (const record of target.list(this.erp)) {
          add(record.name, record.id);
          add(record.external_id, record.id);
        }
        return byName;
      })();
      this.#names.set(column, names);
    }
    return names;
  }
}
