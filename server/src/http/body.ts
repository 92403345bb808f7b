// Write bodies: JSON only, at most 1 MiB and 32 levels deep, parsed once; every refusal is a
// problem response. The depth is bounded before the body is parsed, so nothing that walks a body
// later (validation, the idempotency fingerprint) can exhaust the stack.
import { malformedJson, payloadTooLarge, unsupportedMediaType } from "../refusals/catalogue.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Objects and arrays nested in each other; `{"a": [1]}` is 2 levels. */
export const MAX_JSON_DEPTH = 32;
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

/** The body's bytes, read as they arrive and abandoned the moment they pass `limit`. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
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
  const bytes =
    declared !== null && /^\d+$/.test(declared)
      ? new Uint8Array(await request.arrayBuffer())
      : await readLimited(request, MAX_BODY_BYTES);
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
