// Token → caller (company and token) lookups remembered per process for a few seconds, so a
// request spends no round trip on authentication; a change of plan, add-ons or limits takes
// effect when the entry ends (docs/operations.md). Revocation and expiry take effect within a
// second with no read per request: an expiry is checked against the remembered expires_at, and
// twice a second each process asks the database which tokens were revoked lately (one statement)
// and forgets them. The same tick writes when tokens were last used, once a minute per token.
// Unknown tokens are not remembered: a new token works at once. Entries are keyed by the token
// as sent, so a remembered token costs no hash (the database only ever sees and stores its hash);
// they live in this process's memory only, as the request itself does.
import { envMilliseconds } from "../base/config.ts";
import { log } from "../base/log.ts";
import type { Database } from "../db/client.ts";
import { errorLabel } from "../db/errors.ts";
import {
  hashToken,
  lookupTokenHash,
  markUsed,
  revokedSince,
  type Caller,
  type TokenLookup,
} from "./tokens.ts";

const MAX_ENTRIES = 10_000;
/** How often revocations are asked for and uses written: twice a second, so within one it is seen. */
const TICK_MS = 500;
/**
 * How far back each poll looks: a revocation is seen by several polls, so a lookup that read the
 * token just before it was revoked (and remembered it) is still forgotten by a later one.
 */
const OVERLAP_MS = 15_000;
const MINUTE_MS = 60_000;

interface Entry {
  caller: Caller;
  until: number;
  /** The minute (epoch ms) of this token's last use that this process has noted. */
  usedMinute: number;
}

export class CompanyCache {
  readonly #entries = new Map<string, Entry>();
  /** Token id → the token as sent, to forget a revoked one. */
  readonly #byId = new Map<number, string>();
  readonly #pending = new Map<string, Promise<TokenLookup>>();
  /** Minute → ids of the tokens first used in it, not yet written. */
  readonly #used = new Map<number, Set<number>>();
  #since: Date | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #ticking = false;

  constructor(
    private readonly db: Database,
    private readonly ttlMs = envMilliseconds("ERP_AUTH_CACHE_MS", 4_000),
  ) {}

  /** Starts the per-second revocation poll and last-used writes of this process. */
  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), TICK_MS);
    this.#timer.unref?.();
  }

  /** Stops the poll and writes the uses not yet written. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#flushUses();
  }

  /**
   * The caller of a live token, why a known one no longer works, or undefined for an unknown one:
   * at once (no promise) for a token this process remembers.
   */
  lookup(token: string): TokenLookup | Promise<TokenLookup> {
    const now = Date.now();
    const cached = this.#entries.get(token);
    if (cached && cached.until > now) {
      const expiresAt = cached.caller.token.expiresAt;
      if (expiresAt !== null && expiresAt <= now) {
        this.#forget(cached.caller.token.id);
        return { state: "expired" };
      }
      this.#noteUse(cached, now);
      return { state: "live", caller: cached.caller };
    }
    return this.#read(token, now);
  }

  async #read(token: string, now: number): Promise<TokenLookup> {
    const hash = hashToken(token);
    // Concurrent first requests of one token share one lookup.
    let pending = this.#pending.get(hash);
    if (!pending) {
      pending = lookupTokenHash(this.db, hash).finally(() => this.#pending.delete(hash));
      this.#pending.set(hash, pending);
    }
    const found = await pending;
    if (found?.state === "live") this.#noteUse(this.#remember(token, found.caller), now);
    else this.#entries.delete(token);
    return found;
  }

  /** Forgets a token at once (revoked by this process). */
  forget(tokenId: number): void {
    this.#forget(tokenId);
  }

  /** One round: forget the tokens revoked lately, write the uses noted. Public for tests. */
  async tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      await Promise.all([this.#pollRevocations(), this.#flushUses()]);
    } catch (error) {
      // Its class only: a driver error's message quotes the statement and its values.
      log.throttled("warn", "token-poll", "token revocation poll failed; retrying", {
        error: errorLabel(error),
      });
    } finally {
      this.#ticking = false;
    }
  }

  async #pollRevocations(): Promise<void> {
    // The first poll looks back as far as any poll: entries may predate this process's timer.
    const since = this.#since ?? new Date(Date.now() - OVERLAP_MS);
    const { ids, now } = await revokedSince(this.db, since);
    this.#since = new Date(now.getTime() - OVERLAP_MS);
    if (ids === undefined) {
      this.#entries.clear();
      this.#byId.clear();
    } else for (const id of ids) this.#forget(id);
  }

  async #flushUses(): Promise<void> {
    const due = [...this.#used];
    this.#used.clear();
    for (const [minute, ids] of due) {
      try {
        await markUsed(this.db, [...ids], minute);
      } catch (error) {
        // Kept for the next tick (another node may have written the same row at the same moment).
        const kept = this.#used.get(minute) ?? new Set<number>();
        for (const id of ids) kept.add(id);
        this.#used.set(minute, kept);
        throw error;
      }
    }
  }

  #noteUse(entry: Entry, now: number): void {
    const minute = now - (now % MINUTE_MS);
    if (entry.usedMinute === minute) return;
    entry.usedMinute = minute;
    const ids = this.#used.get(minute) ?? new Set<number>();
    this.#used.set(minute, ids);
    ids.add(entry.caller.token.id);
  }

  #forget(tokenId: number): void {
    const token = this.#byId.get(tokenId);
    if (token === undefined) return;
    this.#byId.delete(tokenId);
    this.#entries.delete(token);
  }

  #remember(token: string, caller: Caller): Entry {
    if (this.#entries.size >= MAX_ENTRIES) {
      // Map keeps insertion order: drop the oldest entry.
      const oldest = this.#entries.entries().next().value;
      if (oldest !== undefined) {
        this.#entries.delete(oldest[0]);
        this.#byId.delete(oldest[1].caller.token.id);
      }
    }
    const previous = this.#entries.get(token);
    // Re-inserted, so it counts as the newest.
    this.#entries.delete(token);
    const entry = { caller, until: Date.now() + this.ttlMs, usedMinute: previous?.usedMinute ?? 0 };
    this.#entries.set(token, entry);
    this.#byId.set(caller.token.id, token);
    return entry;
  }
}
