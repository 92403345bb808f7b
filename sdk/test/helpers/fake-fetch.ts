// A scripted stand-in for fetch: answers calls in order and records what each one sent.
import type { FetchLike } from "../../mod.ts";
import { type ClientOptions, ErpClient, ErpError } from "../../mod.ts";

/** One request as the fake saw it. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | null | undefined;
}

/** Produces the response to one call (or throws, like fetch on a network error). */
export type Reply = (request: SeenRequest) => Response | Promise<Response>;

/** A fake fetch answering with `replies` in order (the last one repeats), and the requests it saw. */
export function fakeFetch(...replies: Reply[]): { fetch: FetchLike; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request: SeenRequest = {
      method: init.method ?? "GET",
      url: new URL(url),
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      signal: init.signal,
    };
    seen.push(request);
    const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
    return await reply(request);
  };
  return { fetch, seen };
}

/** A JSON response. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An RFC 9457 problem response. */
export function problem(
  status: number,
  code: string,
  headers: Record<string, string> = {},
  extra: object = {},
): Response {
  const body = {
    type: "about:blank",
    title: "Error",
    status,
    detail: `failed: ${code}`,
    code,
    request_id: "req_1",
    ...extra,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
}

/** A client wired to the fake, with fast defaults for tests. */
export function clientWith(
  fetch: FetchLike,
  options: Omit<ClientOptions, "baseUrl" | "token" | "fetch"> = {},
): ErpClient {
  return new ErpClient({ baseUrl: "http://erp.test", token: "erp_test", fetch, ...options });
}

/** The ErpError a call fails with; fails the test when it succeeds or throws anything else. */
export async function rejectionOf(promise: Promise<unknown>): Promise<ErpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ErpError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}
