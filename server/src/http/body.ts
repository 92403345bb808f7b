// Write bodies: JSON only, at most 1 MiB, parsed once; every refusal is a problem response.
import { ApiError } from "./problem.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

const tooLarge = (): ApiError =>
  new ApiError(413, "payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`);

export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  if (bytes.byteLength === 0) return undefined;
  const contentType = request.headers.get("content-type");
  if (contentType === null || !JSON_TYPE.test(contentType)) {
    throw new ApiError(415, "unsupported_media_type", `Send the body as JSON with \`Content-Type: application/json\`${contentType ? `, not ${contentType}` : ""}.`);
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, "malformed_json", "The request body is not valid JSON.");
  }
}
