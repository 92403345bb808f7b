// `erp login` run in this process against a scripted API: the token read from stdin (--token-stdin)
// or typed at a prompt, never written to stdout or stderr; checked before it is saved (a refused
// token saves nothing: exit 1); a --token on the command line warned about; usage mistakes exit 2.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type FakeApi, fakeCli } from "../fake-factory.ts";

const TOKEN = "erp_secret_0123456789abcdef";

/** GET /v1/usage answers for TOKEN only. */
const usage: FakeApi = ({ path: route }) =>
  route === "/v1/usage"
    ? { body: { data: { period: "2026-01", requests: 0, quotas: {} } } }
    : { status: 404, body: {} };

const saved = (dir: string): unknown =>
  JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8"));

/** A login with no connection in the environment: only what the command is given. */
const login = (options: Parameters<typeof fakeCli>[0] = {}) =>
  fakeCli({ ...options, env: { ERP_BASE_URL: "", ERP_TOKEN: "", ...options.env } });

describe("erp login", () => {
  test("--token-stdin: the token is stdin's first line, saved 0600 and never shown", async () => {
    const cli = login({ api: usage, stdin: [`${TOKEN}\n`] });
    const code = await cli.erp(["login", "--base-url", "localhost:3000", "--token-stdin"]);
    expect(code).toBe(0);
    expect(saved(cli.dir)).toEqual({
      profiles: { default: { base_url: "http://localhost:3000", token: TOKEN } },
    });
    expect(statSync(path.join(cli.dir, "config.json")).mode & 0o777).toBe(0o600);
    expect(cli.stdout() + cli.stderr()).not.toContain(TOKEN);
    expect(cli.stderr()).toContain("Logged in to http://localhost:3000");
    expect(cli.seen.map((request) => request.path)).toEqual(["/v1/usage"]);
  });

  test("the prompts: the base URL and then the token, which is not echoed", async () => {
    const cli = login({ api: usage, stdin: [`erp.example.com\n${TOKEN}\n`] });
    expect(await cli.erp(["login", "--profile", "staging"])).toBe(0);
    expect(cli.stderr()).toContain("API base URL [http://localhost:3000]: ");
    expect(cli.stderr()).toContain("API token: ");
    expect(cli.stdout() + cli.stderr()).not.toContain(TOKEN);
    expect(saved(cli.dir)).toEqual({
      profiles: { staging: { base_url: "https://erp.example.com", token: TOKEN } },
    });
  });

  test("--token on the command line works, with a warning; the token is still not shown", async () => {
    const cli = login({ api: usage });
    expect(await cli.erp(["login", "--base-url", "localhost:3000", "--token", TOKEN])).toBe(0);
    expect(cli.stderr()).toContain(
      "warning: a token on the command line stays in your shell's history",
    );
    expect(cli.stdout() + cli.stderr()).not.toContain(TOKEN);
  });

  test("a token the API refuses: exit 1, nothing saved", async () => {
    const cli = login({
      api: () => ({ status: 401, body: { code: "invalid_token", detail: "unknown token" } }),
      stdin: [`${TOKEN}\n`],
    });
    expect(await cli.erp(["login", "--base-url", "localhost:3000", "--token-stdin"])).toBe(1);
    expect(cli.stderr()).toContain("401 invalid_token");
    expect(existsSync(path.join(cli.dir, "config.json"))).toBe(false);
  });

  test("usage mistakes: exit 2 before any request", async () => {
    const empty = login({ api: usage, stdin: [] });
    expect(await empty.erp(["login", "--base-url", "localhost:3000", "--token-stdin"])).toBe(2);
    expect(empty.stderr()).toContain("--token-stdin read no token");
    const both = login({ api: usage, stdin: [`${TOKEN}\n`] });
    expect(await both.erp(["login", "--token", TOKEN, "--token-stdin"])).toBe(2);
    expect(both.stderr()).toContain("not both");
    const ended = login({ api: usage, stdin: ["localhost:3000\n"] });
    expect(await ended.erp(["login"])).toBe(2);
    expect(ended.stderr()).toContain('no answer to "API token:"');
    const url = login({ api: usage, stdin: [`${TOKEN}\n`] });
    expect(await url.erp(["login", "--base-url", "ftp://erp.example.com", "--token-stdin"])).toBe(
      2,
    );
    expect([...empty.seen, ...both.seen, ...ended.seen, ...url.seen]).toEqual([]);
  });
});
