// A stand-in API that counts what reaches it, for tests of refusals that must come before the CLI
// sends anything: every request is answered 500 and counted, but the one read an import makes
// before it sends anything (the company's custom fields, which a header is checked against),
// answered as a company without any.
import { afterAll, beforeAll } from "bun:test";

export interface UnexpectedApi {
  /** Its base URL (once the file's tests run). */
  url(): string;
  /** The requests it got so far. */
  requests(): number;
}

/** Starts the stand-in before the describe block's tests and stops it after them. */
export function useUnexpectedApi(): UnexpectedApi {
  let requests = 0;
  let server: ReturnType<typeof Bun.serve> | undefined;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => {
        if (request.method === "GET" && new URL(request.url).pathname === "/v1/custom-fields")
          return Response.json({ data: [] });
        requests++;
        return new Response("not expected", { status: 500 });
      },
    });
  });
  afterAll(() => void server?.stop(true));
  return { url: () => `http://127.0.0.1:${server!.port}`, requests: () => requests };
}
