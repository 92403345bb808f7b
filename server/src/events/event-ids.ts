// Event ids carry their company-wide sequence number, so any event id is also a cursor: a
// consumer resumes after the last event it handled. `evt_` + 10 base-36 digits of the sequence
// + 16 random characters (so ids of different companies do not collide). The events table keeps the
// number and the random part and derives the id from them in the same form (db/schema.ts).
const SEQUENCE_DIGITS = 10;
const RANDOM_CHARACTERS = 16;
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const EVENT_ID = /^evt_([0-9a-z]{10})[0-9a-z]{16}$/;

/** The alphabet's character codes. */
const CODES = new TextEncoder().encode(ALPHABET);

/** The random parts of `count` event ids (one draw of random bytes for them all). */
export function randomSuffixes(count: number): string[] {
  const random = crypto.getRandomValues(new Uint8Array(RANDOM_CHARACTERS * count));
  for (let index = 0; index < random.length; index++)
    random[index] = CODES[random[index]! % ALPHABET.length]!;
  const text = Buffer.from(random.buffer, random.byteOffset, random.length).toString("latin1");
  const suffixes: string[] = [];
  for (let at = 0; at < text.length; at += RANDOM_CHARACTERS)
    suffixes.push(text.slice(at, at + RANDOM_CHARACTERS));
  return suffixes;
}

export function eventId(sequence: number): string {
  return `evt_${sequence.toString(36).padStart(SEQUENCE_DIGITS, "0")}${randomSuffixes(1)[0]}`;
}

/**
 * A cursor at a sequence number that has no event of its own (a feed with no events yet, or all
 * past retention): the number and a suffix of zeros, so it reads like any event id.
 */
export function cursorAt(sequence: number): string {
  return `evt_${sequence.toString(36).padStart(SEQUENCE_DIGITS, "0")}${"0".repeat(RANDOM_CHARACTERS)}`;
}

/** The sequence number an event id (a cursor) stands for; undefined when it is not an event id. */
export function sequenceOf(cursor: string): number | undefined {
  const match = EVENT_ID.exec(cursor);
  return match ? Number.parseInt(match[1]!, 36) : undefined;
}
