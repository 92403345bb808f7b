// SHA-256 digests, each with a few whole numbers, in typed arrays. An import remembers something of
// every row it reads (the rows it has seen, to know a repeated one), so what it keeps per row is what
// its memory grows by: a digest as a string in a Map costs some 200 bytes (the text, the string, the
// entry, the object it maps to) and garbage as much again before a collection; here a row costs 16
// bytes of digest and 4 a number, in a table kept at most half full.

/** 128 bits of a SHA-256 digest: two different rows share them once in 2^128 pairs. */
const KEY_WORDS = 4;

export class DigestTable {
  #keys: Uint32Array;
  #values: Uint32Array;
  #used: Uint8Array;
  #mask: number;
  #count = 0;
  /** The digest being looked up, as words. */
  readonly #key = new Uint32Array(KEY_WORDS);
  readonly #keyBytes = new Uint8Array(this.#key.buffer);

  /** `width`: the numbers kept with each digest. */
  constructor(
    readonly width: number,
    capacity = 1024,
  ) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(capacity * 2, 16)));
    this.#keys = new Uint32Array(slots * KEY_WORDS);
    this.#values = new Uint32Array(slots * width);
    this.#used = new Uint8Array(slots);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#count;
  }

  /** The digest's slot, or -1 when it is not in the table. */
  find(digest: Uint8Array): number {
    this.#keyBytes.set(digest.subarray(0, KEY_WORDS * 4));
    const slot = this.#probe(this.#key);
    return this.#used[slot] ? slot : -1;
  }

  /** Adds a digest not in the table (its numbers 0); its slot. */
  add(digest: Uint8Array): number {
    if ((this.#count + 1) * 2 > this.#used.length) this.#grow();
    this.#keyBytes.set(digest.subarray(0, KEY_WORDS * 4));
    const slot = this.#probe(this.#key);
    if (this.#used[slot]) throw new Error("the digest is in the table already");
    this.#keys.set(this.#key, slot * KEY_WORDS);
    this.#used[slot] = 1;
    this.#count++;
    return slot;
  }

  value(slot: number, index: number): number {
    return this.#values[slot * this.width + index]!;
  }

  /** Sets a number kept with the digest in `slot` (a whole number from 0 to 2^32 - 1). */
  set(slot: number, index: number, value: number): void {
    this.#values[slot * this.width + index] = value;
  }

  /** The slot holding `key`, or the empty one where it would go (the digests are random: no mixing needed). */
  #probe(key: Uint32Array): number {
    const keys = this.#keys;
    for (let slot = key[0]! & this.#mask; ; slot = (slot + 1) & this.#mask) {
      if (!this.#used[slot]) return slot;
      const at = slot * KEY_WORDS;
      if (
        keys[at] === key[0] &&
        keys[at + 1] === key[1] &&
        keys[at + 2] === key[2] &&
        keys[at + 3] === key[3]
      )
        return slot;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const used = this.#used;
    const slots = used.length * 2;
    this.#keys = new Uint32Array(slots * KEY_WORDS);
    this.#values = new Uint32Array(slots * this.width);
    this.#used = new Uint8Array(slots);
    this.#mask = slots - 1;
    for (let old = 0; old < used.length; old++) {
      if (!used[old]) continue;
      const key = keys.subarray(old * KEY_WORDS, (old + 1) * KEY_WORDS);
      const slot = this.#probe(key);
      this.#keys.set(key, slot * KEY_WORDS);
      this.#used[slot] = 1;
      this.#values.set(
        values.subarray(old * this.width, (old + 1) * this.width),
        slot * this.width,
      );
    }
  }
}
