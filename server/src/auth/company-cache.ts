// Token → company lookups remembered per process for a few seconds (docs/limits.md: a revoked token
// or a change of plan, add-ons or limits takes effect within 5 s), so a request spends no round
// trip on authentication. Unknown tokens are not remembered: a new token works at once. Entries
// are keyed by the token as sent, so a remembered token costs no hash (the database only ever
// sees and stores its hash); they live in this process's memory only, as the request itself does.
import { envMilliseconds } from "../base/config.ts";
import type { Database } from "../db/client.ts";
import type { Company } from "./company.ts";
import { companyForTokenHash, hashToken } from "./tokens.ts";

const MAX_ENTRIES = 10_000;

export class CompanyCache {
  readonly #entries = new Map<string, { company: Company; until: number }>();
  readonly #pending = new Map<string, Promise<Company | undefined>>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs = envMilliseconds("ERP_AUTH_CACHE_MS", 4_000),
  ) {}

  /** The company of a live token, or undefined for an unknown or revoked one. */
  async lookup(token: string): Promise<Company | undefined> {
    const cached = this.#entries.get(token);
    if (cached && cached.until > Date.now()) return cached.company;
    const hash = hashToken(token);
    // Concurrent first requests of one token share one lookup.
    let pending = this.#pending.get(hash);
    if (!pending) {
      pending = companyForTokenHash(this.db, hash).finally(() => this.#pending.delete(hash));
      this.#pending.set(hash, pending);
    }
    const company = await pending;
    if (company) this.#remember(token, company);
    else this.#entries.delete(token);
    return company;
  }

  #remember(token: string, company: Company): void {
    if (this.#entries.size >= MAX_ENTRIES) {
      // Map keeps insertion order: drop the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(token, { company, until: Date.now() + this.ttlMs });
  }
}
