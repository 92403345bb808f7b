// Refusals as RFC 9457 problem responses: the one shape every refusal of this API takes on the wire.
import type { Refusal } from "../refusals/refusal.ts";

const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function problemResponse(
  refusal: Refusal,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(refusal.body(requestId)), {
    status: refusal.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, ...extraHeaders, ...refusal.headers },
  });
}
