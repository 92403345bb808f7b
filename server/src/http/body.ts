// Write bodies: JSON only, at most 1 MiB, parsed once; every refusal is a problem response.
import { ApiError } from "./problem.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

const tooLarge = (): ApiError =>
  new ApiError(413, "payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`);

const unsupported = (contentType: string | null): ApiError =>
  new ApiError(415, "unsupported_media_type", `Send the body as JSON with \`Content-Type: application/json\`${contentType ? `, not ${contentType}` : ""}.`);

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
      throw tooLarge();
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
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  const contentType = request.headers.get("content-type");
  if (contentType !== null && !JSON_TYPE.test(contentType)) throw unsupported(contentType);
  const bytes = await readLimited(request, MAX_BODY_BYTES);
  if (bytes.byteLength === 0) return undefined;
  if (contentType === null) throw unsupported(null);
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, "malformed_json", "The request body is not valid JSON (UTF-8).");
  }
}
