// Where an import notes the rows that went through, so a re-run does not even send them.

/**
 * The item keys of rows an import wrote (or found written), kept between runs. It only saves
 * work: a row the journal does not know (lost, or never noted because the process died) carries
 * the same key again and the server writes it at most once. The CLI keeps one in a file; keep
 * yours wherever it survives what you want to survive (localStorage, IndexedDB, a table).
 */
export interface ImportJournal {
  /** Whether the row with this key went through in an earlier run. */
  has(key: string): boolean | Promise<boolean>;
  /** Notes rows as done; awaited before the next batch's results are given. */
  add(keys: readonly string[]): void | Promise<void>;
}

/** A journal in memory: reuse one object for the re-runs of one process. */
export class MemoryJournal implements ImportJournal {
  readonly #done = new Set<string>();

  has(key: string): boolean {
    return this.#done.has(key);
  }

  add(keys: readonly string[]): void {
    for (const key of keys) this.#done.add(key);
  }

  /** Rows noted so far. */
  get size(): number {
    return this.#done.size;
  }
}
