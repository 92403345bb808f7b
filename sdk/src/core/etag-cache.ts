// Remembers the ETag and body of recent reads so get() can revalidate and reuse the body on 304.

/** A stored read: its validator and the raw body it validated. */
export interface CachedRead {
  etag: string;
  body: string;
}

/** A small least-recently-used map from request URL to its last ETag and body. */
export class EtagCache {
  readonly #entries = new Map<string, CachedRead>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get(url: string): CachedRead | undefined {
    const entry = this.#entries.get(url);
    if (entry) {
      this.#entries.delete(url);
      this.#entries.set(url, entry);
    }
    return entry;
  }

  set(url: string, entry: CachedRead): void {
    if (this.#maxEntries < 1) return;
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    if (this.#entries.size > this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  delete(url: string): void {
    this.#entries.delete(url);
  }
}
