// API tokens: issued once in clear, stored only as SHA-256 hashes; named, scoped (scopes.ts),
// expiring and revocable (docs/tokens.md).
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client.ts";
import { apiTokens, companies } from "../db/schema.ts";
import { companyFromRow, type Company } from "./company.ts";

export const hashToken = (token: string): string =>
  createHash("sha256").update(token).digest("hex");

/** A token as a request presents it: whose it is and what it may do. */
export interface TokenInfo {
  id: number;
  scopes: ReadonlySet<string>;
  /** Epoch milliseconds; null: never. */
  expiresAt: number | null;
}

/** The caller a token names: its company and the token itself. */
export interface Caller {
  company: Company;
  token: TokenInfo;
}

/** What a stored token says when presented: who it is, or why it no longer works. */
export type TokenLookup =
  | { state: "live"; caller: Caller }
  | { state: "revoked" | "expired" }
  | undefined;

export interface NewToken {
  name: string;
  scopes: readonly string[];
  expiresInDays?: number;
}

export interface IssuedToken {
  id: number;
  name: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  token: string;
}

export const DAY_MS = 86_400_000;

/** Scopes are stored as one space-separated text, as OAuth writes them. */
export const scopeList = (stored: string): string[] => stored.split(" ").filter(Boolean);

export async function issueToken(
  db: Executor,
  companyId: number,
  spec: NewToken = { name: "admin", scopes: ["*"] },
): Promise<IssuedToken> {
  const token = `erp_${randomBytes(32).toString("base64url")}`;
  // Milliseconds dropped: the stored value is what the answer shows.
  const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const expiresAt =
    spec.expiresInDays === undefined
      ? null
      : new Date(createdAt.getTime() + spec.expiresInDays * DAY_MS);
  const scopes = [...new Set(spec.scopes)];
  const [result] = await db.insert(apiTokens).values({
    company_id: companyId,
    token_hash: hashToken(token),
    name: spec.name,
    scopes: scopes.join(" "),
    created_at: createdAt,
    expires_at: expiresAt,
  });
  return {
    id: Number(result.insertId),
    name: spec.name,
    scopes,
    created_at: createdAt.toISOString(),
    expires_at: expiresAt?.toISOString() ?? null,
    token,
  };
}

/** Revokes a token by its secret; false when no live token matches. */
export async function revokeToken(db: Database, token: string): Promise<boolean> {
  const [result] = await db
    .update(apiTokens)
    .set({ revoked_at: sql`CURRENT_TIMESTAMP(3)` })
    .where(and(eq(apiTokens.token_hash, hashToken(token)), isNull(apiTokens.revoked_at)));
  return result.affectedRows > 0;
}

/** Revokes one of the company's live tokens by its id; false when there is none. */
export async function revokeTokenById(
  db: Executor,
  companyId: number,
  id: number,
): Promise<boolean> {
  const [result] = await db
    .update(apiTokens)
    .set({ revoked_at: sql`CURRENT_TIMESTAMP(3)` })
    .where(
      and(eq(apiTokens.company_id, companyId), eq(apiTokens.id, id), isNull(apiTokens.revoked_at)),
    );
  return result.affectedRows > 0;
}

/** The scopes of one of the company's live tokens; undefined when there is none. */
export async function liveTokenScopes(
  db: Executor,
  companyId: number,
  id: number,
): Promise<string[] | undefined> {
  const [row] = await db
    .select({ scopes: apiTokens.scopes })
    .from(apiTokens)
    .where(
      and(eq(apiTokens.company_id, companyId), eq(apiTokens.id, id), isNull(apiTokens.revoked_at)),
    )
    .limit(1);
  return row && scopeList(row.scopes);
}

/** The company's live (not revoked) tokens, oldest first, without their secrets. */
export async function listTokens(db: Executor, companyId: number) {
  const rows = await db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      scopes: apiTokens.scopes,
      created_at: apiTokens.created_at,
      expires_at: apiTokens.expires_at,
      last_used_at: apiTokens.last_used_at,
    })
    .from(apiTokens)
    .where(and(eq(apiTokens.company_id, companyId), isNull(apiTokens.revoked_at)))
    .orderBy(asc(apiTokens.id));
  return rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    scopes: scopeList(row.scopes),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  }));
}

/** The token (by its hash) with its company, in one round trip, or why it no longer works. */
export async function lookupTokenHash(db: Database, tokenHash: string): Promise<TokenLookup> {
  const rows = await db
    .select({
      token_id: apiTokens.id,
      scopes: apiTokens.scopes,
      expires_at: apiTokens.expires_at,
      revoked_at: apiTokens.revoked_at,
      id: companies.id,
      name: companies.name,
      plan: companies.plan,
      addons: companies.addons,
      quota_overrides: companies.quota_overrides,
      rate_limit: companies.rate_limit,
    })
    .from(apiTokens)
    .innerJoin(companies, eq(companies.id, apiTokens.company_id))
    .where(eq(apiTokens.token_hash, tokenHash))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  if (row.revoked_at) return { state: "revoked" };
  const expiresAt = row.expires_at?.getTime() ?? null;
  if (expiresAt !== null && expiresAt <= Date.now()) return { state: "expired" };
  return {
    state: "live",
    caller: {
      company: companyFromRow(row),
      token: { id: Number(row.token_id), scopes: new Set(scopeList(row.scopes)), expiresAt },
    },
  };
}

/**
 * The tokens revoked at or after `since` (the database's clock) and the database's time now, in
 * one statement: what a process polls to forget the revoked tokens it remembers. `ids` is
 * undefined when there were too many to list (GROUP_CONCAT's limit): forget every token then.
 */
export async function revokedSince(
  db: Database,
  since: Date,
): Promise<{ ids: number[] | undefined; now: Date }> {
  const [row] = await db
    .select({
      now: sql<string>`CAST(CURRENT_TIMESTAMP(3) AS CHAR)`,
      count: sql<number>`COUNT(*)`,
      ids: sql<string | null>`GROUP_CONCAT(${apiTokens.id})`,
    })
    .from(apiTokens)
    .where(gte(apiTokens.revoked_at, since));
  const ids = (row?.ids ?? "").split(",").filter(Boolean).map(Number);
  return {
    ids: ids.length === Number(row?.count ?? 0) ? ids : undefined,
    now: new Date(`${String(row!.now).replace(" ", "T")}Z`),
  };
}

/** Records that these tokens were used in the minute starting at `minute` (epoch ms). */
export async function markUsed(db: Database, ids: readonly number[], minute: number) {
  const at = new Date(minute);
  await db
    .update(apiTokens)
    .set({ last_used_at: sql`GREATEST(COALESCE(${apiTokens.last_used_at}, ${at}), ${at})` })
    .where(inArray(apiTokens.id, [...ids]));
}
