// Write bodies: JSON only, at most 1 MiB and 32 levels deep, arrived within 10 s of the request,
// parsed once; every refusal is a problem response. The depth is bounded before the body is
// parsed, so nothing that walks a body later (validation, the idempotency fingerprint) can
// exhaust the stack.
import {
  malformedJson,
  payloadTooLarge,
  requestTimeout,
  unsupportedMediaType,
} from "../refusals/catalogue.ts";
import { Refusal } from "../refusals/refusal.ts";
import { holdOpen } from "./hold-open.ts";
import { contextOf } from "./request-context.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Objects and arrays nested in each other; `{"a": [1]}` is 2 levels. */
export const MAX_JSON_DEPTH = 32;
/** How long after the request arrived its body may still be arriving (docs/limits.md). */
export const BODY_TIMEOUT_MS = 10_000;
/**
 * The least time a read of the body gets: a request that waited before it read its body (its
 * admission on a slow database) is not refused for a body that is already there.
 */
const MIN_READ_MS = 1_000;
/** Past the body's time, what the refusal may take to go out before the runtime closes the connection. */
const ANSWER_SECONDS = 5;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** True when `text` opens more than `limit` objects or arrays inside each other (strings skipped). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (OPENERS.has(code)) {
      depth += 1;
      if (depth > limit) return true;
    } else if (CLOSERS.has(code)) depth -= 1;
  }
  return false;
}

/** When the body must have arrived (epoch ms), fixed once as its read starts. */
function bodyDeadline(request: Request): number {
  const deadline = Math.max(
    contextOf(request).receivedAt + BODY_TIMEOUT_MS,
    Date.now() + MIN_READ_MS,
  );
  holdOpen(request, Math.ceil((deadline - Date.now()) / 1000) + ANSWER_SECONDS);
  return deadline;
}

/**
 * What `pending` (a read of the body) gives, or 408 request_timeout once `deadline` passed:
 * `abandon` then stops the read. A body trickled in byte by byte would otherwise hold the request
 * until the runtime closes its connection without an answer.
 */
async function inTime<T>(deadline: number, pending: Promise<T>, abandon: () => void): Promise<T> {
  const left = Math.max(0, deadline - Date.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(requestTimeout(BODY_TIMEOUT_MS / 1000)), left);
  });
  try {
    return await Promise.race([pending, late]);
  } catch (error) {
    if (error instanceof Refusal && error.code === "request_timeout") abandon();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The body's bytes, read as they arrive and abandoned the moment they pass `limit`. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const deadline = bodyDeadline(request);
  const reader = request.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await inTime(deadline, reader.read(), cancel);
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(MAX_BODY_BYTES);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The parsed JSON body; undefined when there is none. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
  const contentType = request.headers.get("content-type");
  if (contentType !== null && !JSON_TYPE.test(contentType)) throw unsupportedMediaType(contentType);
  // A declared length within the limit is all the runtime reads: taken at once, without a stream's
  // per-chunk cost. A body without one (chunked) is read as it arrives, up to the limit.
  let bytes: Uint8Array;
  if (declared !== null && /^\d+$/.test(declared)) {
    const whole = request.arrayBuffer();
    // Given up on when late: the connection closes under it.
    const deadline = bodyDeadline(request);
    bytes = new Uint8Array(await inTime(deadline, whole, () => void whole.catch(() => {})));
  } else bytes = await readLimited(request, MAX_BODY_BYTES);
  if (bytes.byteLength === 0) return undefined;
  if (contentType === null) throw unsupportedMediaType(null);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw malformedJson("The request body is not valid UTF-8 text.");
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw malformedJson(
      `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels; no body of this API needs more.`,
    );
  try {
    return JSON.parse(text);
  } catch {
    throw malformedJson("The request body is not valid JSON.");
  }
}
