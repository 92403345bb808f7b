// Event ids carry their company-wide sequence number, so any event id is also a cursor: a
// consumer resumes after the last event it handled. `evt_` + 10 base-36 digits of the sequence
// + 16 random characters (so ids of different companies do not collide).
const SEQUENCE_DIGITS = 10;
const RANDOM_CHARACTERS = 16;
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const EVENT_ID = /^evt_([0-9a-z]{10})[0-9a-z]{16}$/;

export function eventId(sequence: number): string {
  const random = crypto.getRandomValues(new Uint8Array(RANDOM_CHARACTERS));
  const suffix = [...random].map((byte) => ALPHABET[byte % ALPHABET.length]).join("");
  return `evt_${sequence.toString(36).padStart(SEQUENCE_DIGITS, "0")}${suffix}`;
}

/** The sequence number an event id (a cursor) stands for; undefined when it is not an event id. */
export function sequenceOf(cursor: string): number | undefined {
  const match = EVENT_ID.exec(cursor);
  return match ? Number.parseInt(match[1]!, 36) : undefined;
}
