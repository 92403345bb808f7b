// API tokens: issued once in clear, stored only as SHA-256 hashes, revocable.
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { apiTokens, companies } from "../db/schema.ts";
import { companyFromRow, type Company } from "./company.ts";

export const hashToken = (token: string): string =>
  createHash("sha256").update(token).digest("hex");

export async function issueToken(db: Database, companyId: number): Promise<string> {
  const token = `erp_${randomBytes(32).toString("base64url")}`;
  await db.insert(apiTokens).values({ company_id: companyId, token_hash: hashToken(token) });
  return token;
}

/** Revokes a token; false when no live token matches. */
export async function revokeToken(db: Database, token: string): Promise<boolean> {
  const [result] = await db
    .update(apiTokens)
    .set({ revoked_at: new Date() })
    .where(and(eq(apiTokens.token_hash, hashToken(token)), isNull(apiTokens.revoked_at)));
  return result.affectedRows > 0;
}

/** The company a live token (by its hash) belongs to, in one round trip. */
export async function companyForTokenHash(
  db: Database,
  tokenHash: string,
): Promise<Company | undefined> {
  const rows = await db
    .select({
      id: companies.id,
      name: companies.name,
      plan: companies.plan,
      addons: companies.addons,
      max_projects: companies.max_projects,
      max_workers: companies.max_workers,
      rate_limit: companies.rate_limit,
    })
    .from(apiTokens)
    .innerJoin(companies, eq(companies.id, apiTokens.company_id))
    .where(and(eq(apiTokens.token_hash, tokenHash), isNull(apiTokens.revoked_at)))
    .limit(1);
  return rows[0] ? companyFromRow(rows[0]) : undefined;
}
