// Company administration: create a company with its seeded lookups, zeroed counters and first token.
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { companies } from "../db/schema.ts";
import { issueToken } from "../auth/tokens.ts";
import type { Plan, QuotaName } from "../auth/plans.ts";
import type { Addon } from "../auth/addons.ts";
import { RESOURCES, seedLookups } from "../resources/registry.ts";
import { fillPlaceholders, runStatement } from "../db/sql.ts";
import { newCompanyCounters } from "../db/company-counters.ts";

export interface NewCompany {
  name: string;
  plan: Plan;
  addons: Addon[];
  /** Limits of the plans' quotas for this company alone, by resource (`{ projects: 10 }`). */
  quotas?: Partial<Record<QuotaName, number>>;
  rateLimit?: number;
}

export async function createCompany(
  db: Database,
  input: NewCompany,
): Promise<{ company_id: number; token: string }> {
  const companyId = await db.transaction(async (tx) => {
    const [result] = await tx.insert(companies).values({
      name: input.name,
      plan: input.plan,
      addons: [...new Set(input.addons)],
      quota_overrides: input.quotas ?? null,
      rate_limit: input.rateLimit ?? null,
    });
    const id = Number(result.insertId);
    await seedLookups(tx, id);
    const counters = newCompanyCounters(
      id,
      RESOURCES.map((def) => def.name),
    );
    await runStatement(tx, sql.raw(fillPlaceholders(counters.text, counters.values ?? [])));
    return id;
  });
  const issued = await issueToken(db, companyId, { name: "initial", scopes: ["*"] });
  return { company_id: companyId, token: issued.token };
}

/**
 * Sets a company's live-record counters from its records: for rows written around the API (a
 * bulk load straight into the tables), whose counts no write's transaction kept.
 */
export async function recountLiveRecords(db: Database, companyId: number): Promise<void> {
  for (const def of RESOURCES) {
    await runStatement(
      db,
      sql`INSERT INTO company_counters (company_id, name, value)
      SELECT ${companyId}, ${def.name}, COUNT(*) FROM ${def.table} WHERE company_id = ${companyId}
        AND deleted_at IS NULL
      ON DUPLICATE KEY UPDATE value = VALUES(value)`,
    );
  }
}
