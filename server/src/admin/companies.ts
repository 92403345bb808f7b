// Company administration: create a company with its seeded lookups and first token.
import type { Database } from "../db/client.ts";
import { companies } from "../db/schema.ts";
import { issueToken } from "../auth/tokens.ts";
import type { Plan } from "../auth/plans.ts";
import type { Addon } from "../auth/addons.ts";
import { seedLookups } from "../resources/registry.ts";

export interface NewCompany {
  name: string;
  plan: Plan;
  addons: Addon[];
  maxProjects?: number;
  maxWorkers?: number;
  rateLimit?: number;
}

export async function createCompany(db: Database, input: NewCompany): Promise<{ company_id: number; token: string }> {
  const companyId = await db.transaction(async (tx) => {
    const [result] = await tx.insert(companies).values({
      name: input.name,
      plan: input.plan,
      addons: [...new Set(input.addons)],
      max_projects: input.maxProjects ?? null,
      max_workers: input.maxWorkers ?? null,
      rate_limit: input.rateLimit ?? null,
    });
    const id = Number(result.insertId);
    await seedLookups(tx, id);
    return id;
  });
  return { company_id: companyId, token: await issueToken(db, companyId) };
}
