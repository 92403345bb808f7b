// Plan quotas on live records (projects, workers), counted in quota_usage in the transaction of
// each create and delete. A create takes its slot with one conditional UPDATE: on one database
// the row lock queues concurrent creates of a company; on a Galera cluster two nodes taking the
// last slot write the same row and certification lets exactly one commit (the other is retried
// and finds the quota full). Nothing relies on a lock another node cannot see.
import { sql } from "drizzle-orm";
import type { ResultSetHeader } from "mysql2";
import type { Company } from "../auth/company.ts";
import type { Executor } from "../db/client.ts";
import { executePrepared } from "../db/statements.ts";
import { ApiError } from "../http/problem.ts";
import type { ResourceDefinition } from "../resources/definition.ts";

type QuotaResource = NonNullable<ResourceDefinition["quota"]>;

const affected = (result: unknown): number => (result as [ResultSetHeader])[0].affectedRows;

async function readUsed(db: Executor, companyId: number, resource: QuotaResource): Promise<number | undefined> {
  const [rows] = await db.execute(sql`SELECT used FROM quota_usage WHERE company_id = ${companyId} AND resource = ${resource}`) as unknown as [{ used: number }[]];
  return rows[0] === undefined ? undefined : Number(rows[0].used);
}

/** Starts a company's counter from its live records; a concurrent start leaves the first one. */
async function startCounter(db: Executor, def: ResourceDefinition, companyId: number, resource: QuotaResource): Promise<void> {
  await db.execute(sql`
    INSERT INTO quota_usage (company_id, resource, used)
    SELECT ${companyId}, ${resource}, COUNT(*) FROM ${def.table} WHERE company_id = ${companyId} AND deleted_at IS NULL
    ON DUPLICATE KEY UPDATE used = used`);
}

function exceeded(company: Company, resource: QuotaResource, used: number, limit: number, wanted: number): ApiError {
  const asked = wanted === 1 ? "" : ` (this request needs ${wanted} more)`;
  return new ApiError(402, "quota_exceeded", `Your ${company.plan} plan allows ${limit} live ${resource}; you have ${used}${asked}. Delete some or upgrade the plan.`,
    undefined, {}, { quota: { resource, used, limit } });
}

/**
 * Takes `count` slots of the definition's quota for a create, or throws 402 quota_exceeded. A
 * dry-run only reads the counter. Unlimited plans still count, so a later plan change is exact.
 */
export async function takeQuota(db: Executor, def: ResourceDefinition, company: Company, options: { count?: number; dryRun?: boolean } = {}): Promise<void> {
  const resource = def.quota;
  if (!resource) return;
  const count = options.count ?? 1;
  const limit = company.limits[resource];
  if (options.dryRun) {
    if (limit === null) return;
    const used = (await readUsed(db, company.id, resource)) ?? 0;
    if (used + count > limit) throw exceeded(company, resource, used, limit, count);
    return;
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = limit === null
      ? await executePrepared(db, "UPDATE quota_usage SET used = used + ? WHERE company_id = ? AND resource = ?", [count, company.id, resource])
      : await executePrepared(db, "UPDATE quota_usage SET used = used + ? WHERE company_id = ? AND resource = ? AND used + ? <= ?", [count, company.id, resource, count, limit]);
    if (result.affectedRows === 1) return;
    const used = await readUsed(db, company.id, resource);
    if (used === undefined) await startCounter(db, def, company.id, resource);
    else if (limit !== null && used + count > limit) throw exceeded(company, resource, used, limit, count);
    // Else the counter appeared between the two statements (another writer, or on a cluster
    // another node, started it): take the slot again.
  }
  throw new Error(`quota counter for ${resource} of company ${company.id} could not be started`);
}

/** Gives back the slots of deleted records, in the delete's transaction. */
export async function releaseQuota(db: Executor, def: ResourceDefinition, companyId: number, count = 1): Promise<void> {
  if (!def.quota || count === 0) return;
  await db.execute(sql`UPDATE quota_usage SET used = used - ${count} WHERE company_id = ${companyId} AND resource = ${def.quota} AND used >= ${count}`);
}

/**
 * The quota slots of many creates in one transaction (a batch): the counter row is read and locked
 * once, each create takes a slot from it in memory (so item k is refused exactly when the slots
 * before it ran out), and the total is written once at the end. The row lock (on a cluster, the
 * certified write of the same row) keeps concurrent writers exact, as takeQuota does.
 */
export class QuotaLedger {
  readonly #counters = new Map<QuotaResource, { used: number; taken: number; def: ResourceDefinition }>();

  constructor(private readonly db: Executor, private readonly company: Company) {}

  async take(def: ResourceDefinition): Promise<void> {
    const resource = def.quota;
    if (!resource) return;
    let counter = this.#counters.get(resource);
    if (!counter) {
      counter = { used: await this.#lockedUsed(def, resource), taken: 0, def };
      this.#counters.set(resource, counter);
    }
    const limit = this.company.limits[resource];
    if (limit !== null && counter.used + counter.taken + 1 > limit) throw exceeded(this.company, resource, counter.used + counter.taken, limit, 1);
    counter.taken += 1;
  }

  /** A create that took a slot and then failed gives it back. */
  release(def: ResourceDefinition): void {
    const counter = def.quota ? this.#counters.get(def.quota) : undefined;
    if (counter && counter.taken > 0) counter.taken -= 1;
  }

  /** Writes the slots taken; the last statement of the batch before its events. */
  async settle(): Promise<void> {
    for (const [resource, counter] of this.#counters) {
      if (counter.taken === 0) continue;
      await this.db.execute(sql`UPDATE quota_usage SET used = used + ${counter.taken} WHERE company_id = ${this.company.id} AND resource = ${resource}`);
    }
  }

  async #lockedUsed(def: ResourceDefinition, resource: QuotaResource): Promise<number> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const [rows] = await this.db.execute(sql`SELECT used FROM quota_usage WHERE company_id = ${this.company.id} AND resource = ${resource} FOR UPDATE`) as unknown as [{ used: number }[]];
      if (rows[0]) return Number(rows[0].used);
      await startCounter(this.db, def, this.company.id, resource);
    }
    throw new Error(`quota counter for ${resource} of company ${this.company.id} could not be started`);
  }
}
