// Test support for the commands' unit tests: a Factory (factory.ts) with captured stdout and stderr,
// stdin given as text, a scripted API in place of fetch, a Ctrl-C the test presses, and an exit at
// once that is recorded instead of ending the test's process. `erp(args)` runs the real program.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { Factory, Input, Output } from "./factory.ts";
import { runProgram } from "./program.ts";

/** One request as the fake API saw it. */
export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}

/** Answers a request: a JSON body (200 unless `status` says otherwise). */
export type FakeApi = (
  request: Seen,
) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

class Captured implements Output {
  text = "";
  constructor(readonly isTTY = false) {}
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }
  once(): this {
    return this;
  }
}

export interface FakeCli {
  f: Factory;
  /** Runs `erp <args>`; its exit code. */
  erp(args: string[]): Promise<number>;
  stdout(): string;
  stderr(): string;
  /** The requests the fake API got. */
  seen: Seen[];
  /** Presses Ctrl-C (SIGINT) once. */
  interrupt(): void;
  /** The exits at once the command asked for, with what it wrote as it went. */
  exits: { code: number; lastWords: string }[];
  /** A fresh directory for the test's files. */
  dir: string;
}

export function fakeCli({
  api = () => ({ status: 404, body: { code: "route_not_found" } }),
  stdin = [],
  env = {},
  stdinTerminal = false,
  stdoutTerminal = false,
}: {
  api?: FakeApi;
  /** What stdin gives, chunk by chunk. */
  stdin?: string[];
  env?: Record<string, string>;
  stdinTerminal?: boolean;
  stdoutTerminal?: boolean;
} = {}): FakeCli {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-cli-unit-"));
  const out = new Captured(stdoutTerminal);
  const err = new Captured();
  const chunks = stdin.map((chunk) => Buffer.from(chunk));
  const input = Object.assign(Readable.from(chunks), { isTTY: stdinTerminal }) as Input;
  const seen: Seen[] = [];
  const handlers: (() => void)[] = [];
  const exits: { code: number; lastWords: string }[] = [];
  const f: Factory = {
    io: { stdin: input, stdout: out, stderr: err },
    env: {
      ERP_BASE_URL: "http://erp.test",
      ERP_TOKEN: "erp_test_token",
      ERP_CONFIG: path.join(dir, "config.json"),
      XDG_STATE_HOME: path.join(dir, "state"),
      NO_COLOR: "1",
      ...env,
    },
    async fetch(url, init) {
      const parsed = new URL(url);
      const request: Seen = {
        method: init.method ?? "GET",
        path: parsed.pathname,
        query: parsed.searchParams,
        body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      };
      seen.push(request);
      const { status = 200, body } = await api(request);
      const type = status >= 400 ? "application/problem+json" : "application/json";
      return new Response(JSON.stringify(body), { status, headers: { "content-type": type } });
    },
    onInterrupt: (handler) => void handlers.push(handler),
    exitNow: (code, lastWords) => void exits.push({ code, lastWords }),
    exitCode: 0,
  };
  return {
    f,
    erp: (args) => runProgram(f, ["bun", "erp", ...args]),
    stdout: () => out.text,
    stderr: () => err.text,
    seen,
    interrupt: () => {
      for (const handler of handlers) handler();
    },
    exits,
    dir,
  };
}

/** A batch route that creates every item (ids from 1), but refuses the ones `refuse` names. */
export function batchApi(
  refuse: (item: Record<string, unknown>) => { code: string; field: string } | undefined = () =>
    undefined,
): FakeApi {
  let id = 0;
  return ({ method, path: route, body }) => {
    if (method === "GET" && route === "/v1/usage") return { body: { data: { quotas: {} } } };
    if (method === "GET" && route === "/v1/custom-fields") return { body: { data: [] } };
    if (method !== "POST" || !route.endsWith("/batch")) return { status: 404, body: {} };
    const items = (body?.items ?? []) as Record<string, unknown>[];
    const results = items.map((item, index) => {
      const refused = refuse(item);
      if (!refused) return { index, status: 201, id: ++id, action: "created" };
      const error = {
        type: "about:blank",
        title: "Unprocessable Entity",
        status: 422,
        code: refused.code,
        detail: `${refused.field} is refused`,
        request_id: "req_1",
        errors: [{ field: refused.field, code: refused.code, message: "refused" }],
      };
      return { index, status: 422, id: null, error };
    });
    return { body: { data: { dry_run: false, atomic: false, results } } };
  };
}
