// What users expect of any API CLI: a version, shell completion, profiles, auth status and logout,
// --verbose, get --include, bare host names, lookups and sub-collections, the change feed and a
// local webhook listener, and a single-file binary.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { verifyWebhook } from "../sdk/mod.ts";
import { erp, erpFor, ndjson, tempDir } from "@erp/testing/cli";
import { newCompany } from "@erp/testing/company";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
const dir = tempDir();
let token: string;
let cli: ReturnType<typeof erpFor>;

beforeAll(async () => {
  token = (await newCompany()).token;
  cli = erpFor(suite.server.baseUrl, token);
});

const port = (): string => new URL(suite.server.baseUrl).port;
const version = (
  JSON.parse(readFileSync(path.join(ROOT, "cli/package.json"), "utf8")) as { version: string }
).version;

describe("CLI table stakes", () => {
  test("erp --version prints the package version", async () => {
    const result = await erp(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  test(
    "bash completion completes commands, resource verbs and options from the command tree; " +
      "zsh and fish scripts exist",
    async () => {
      const script = (await erp(["completion", "bash"])).stdout;
      const complete = (words: string[]): string[] => {
        const run = Bun.spawnSync([
          "bash",
          "-c",
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); ` +
            `COMP_CWORD=${words.length - 1}; _erp_complete; echo "\${COMPREPLY[@]}"`,
        ]);
        return run.stdout.toString().trim().split(/\s+/);
      };
      expect(complete(["erp", "equ"]).sort()).toEqual(["equipment", "equipment-categories"]);
      expect(complete(["erp", "workers", ""])).toEqual(
        expect.arrayContaining(["list", "get", "create", "update", "delete"]),
      );
      expect(complete(["erp", "import", "workers", "staff.csv", "--re"]).sort()).toEqual([
        "--rejects",
        "--report",
      ]);
      expect((await erp(["completion", "zsh"])).stdout).toContain("#compdef erp");
      expect((await erp(["completion", "fish"])).stdout).toContain("complete -c erp");
      expect((await erp(["completion", "tcsh"])).code).toBe(2);
    },
  );

  test(
    "profiles: login --profile with a bare host, auth status says what is used and from " +
      "where, logout forgets it",
    async () => {
      const config = path.join(dir, "profiles.json");
      const env = { ERP_CONFIG: config };
      const login = await erp(
        ["login", "--profile", "staging", "--base-url", `127.0.0.1:${port()}`, "--token", token],
        { env },
      );
      expect(login.code).toBe(0);
      expect(login.stderr).toContain("profile staging");
      const status = await erp(["auth", "status", "--profile", "staging", "-o", "json"], { env });
      expect(status.code).toBe(0);
      const shown = JSON.parse(status.stdout);
      expect(shown).toMatchObject({
        base_url: `http://127.0.0.1:${port()}`,
        profile: "staging",
        saved_profiles: "staging",
      });
      expect(shown.token).not.toContain(token.slice(8, -4));
      expect(shown.token_from).toContain("profile staging");
      // The default profile is not logged in; ERP_PROFILE selects like --profile.
      expect((await erp(["auth", "status"], { env })).code).toBe(2);
      expect(
        (await erp(["trades", "list", "-o", "json"], { env: { ...env, ERP_PROFILE: "staging" } }))
          .code,
      ).toBe(0);
      expect((await erp(["logout", "--profile", "staging"], { env })).stderr).toContain("removed");
      expect((await erp(["auth", "status", "--profile", "staging"], { env })).code).toBe(2);
    },
  );

  test(
    "--verbose prints each request and answer on stderr, never the token; get --include " +
      "shows the ETag",
    async () => {
      const made = JSON.parse(
        (await cli(["clients", "create", "name=Verbose Co", "-o", "json"])).stdout,
      );
      const verbose = await cli([
        "clients",
        "get",
        String(made.id),
        "--verbose",
        "--include",
        "-o",
        "json",
      ]);
      expect(verbose.code).toBe(0);
      expect(verbose.stderr).toMatch(
        new RegExp(`> GET ${suite.server.baseUrl}/v1/clients/${made.id}`),
      );
      expect(verbose.stderr).toMatch(/< 200 OK in \d+ ms/);
      expect(verbose.stderr).toMatch(/^etag: "[^"]+"$/m);
      expect(verbose.stderr).not.toContain(token);
      expect(JSON.parse(verbose.stdout).name).toBe("Verbose Co");
    },
  );

  test("delete off a terminal goes ahead with --yes; lookups and rentals have their commands", async () => {
    const made = JSON.parse(
      (await cli(["clients", "create", "name=Gone Co", "-o", "json"])).stdout,
    );
    expect((await cli(["clients", "delete", String(made.id), "--yes", "-o", "json"])).code).toBe(0);
    const trades = JSON.parse((await cli(["trades", "list", "-o", "json"])).stdout);
    expect(trades.length).toBeGreaterThan(0);
    expect(
      JSON.parse((await cli(["equipment-categories", "list", "-o", "json"])).stdout).length,
    ).toBeGreaterThan(0);
    const equipment = JSON.parse(
      (await cli(["equipment", "create", "name=Crane", "-o", "json"])).stdout,
    ).id;
    const project = JSON.parse(
      (await cli(["projects", "create", "name=Site", "-o", "json"])).stdout,
    ).id;
    const rental = JSON.parse(
      (
        await cli([
          "rentals",
          "create",
          String(equipment),
          `project_id=${project}`,
          "start_date=2026-04-01",
          "-o",
          "json",
        ])
      ).stdout,
    );
    expect(rental.created).toBe(true);
    expect(
      (
        await cli([
          "rentals",
          "update",
          String(equipment),
          String(rental.id),
          "end_date=2026-04-09",
          "-o",
          "json",
        ])
      ).code,
    ).toBe(0);
    const listed = JSON.parse(
      (await cli(["rentals", "list", String(equipment), "-o", "json"])).stdout,
    );
    expect(listed.map((r: { id: number; end_date: string }) => [r.id, r.end_date])).toEqual([
      [rental.id, "2026-04-09"],
    ]);
  });

  test(
    "erp events lists the feed; erp listen --forward-to POSTs new events signed with the " +
      "secret it printed",
    async () => {
      const events = ndjson((await cli(["events", "-o", "ndjson"])).stdout);
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((event) => /^evt_/.test(event.id))).toBe(true);

      const got: { body: string; signature: string | null }[] = [];
      const receiver = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        async fetch(request) {
          got.push({ body: await request.text(), signature: request.headers.get("erp-signature") });
          return new Response("ok");
        },
      });
      const listener = Bun.spawn(
        [
          process.execPath,
          path.join(ROOT, "cli/src/main.ts"),
          "listen",
          "--events",
          "client.*",
          "--forward-to",
          `http://127.0.0.1:${receiver.port}/hooks`,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      try {
        let banner = "";
        const reader = listener.stderr.getReader();
        while (!banner.includes("Signing secret"))
          banner += new TextDecoder().decode((await reader.read()).value);
        const secret = /Signing secret: (whsec_\S+)/.exec(banner)![1]!;
        await cli(["projects", "create", "name=Not forwarded"]);
        await cli(["clients", "create", "name=Forwarded Co"]);
        for (let i = 0; i < 100 && got.length === 0; i++) await Bun.sleep(100);
        expect(got.map((g) => JSON.parse(g.body).type)).toEqual(["client.created"]);
        expect(await verifyWebhook(got[0]!.body, got[0]!.signature, secret)).toBe(true);
      } finally {
        listener.kill("SIGINT");
        await listener.exited;
        receiver.stop(true);
      }
    },
  );

  test("a single-file binary: bun run --cwd cli build makes cli/dist/erp, which runs on its own", async () => {
    const build = Bun.spawnSync([process.execPath, "run", "--cwd", "cli", "build"], { cwd: ROOT });
    expect(build.exitCode).toBe(0);
    const binary = path.join(ROOT, "cli/dist/erp");
    expect(existsSync(binary)).toBe(true);
    const run = (args: string[]) =>
      Bun.spawnSync([binary, ...args], {
        env: {
          PATH: "/usr/bin:/bin",
          HOME: dir,
          ERP_BASE_URL: suite.server.baseUrl,
          ERP_TOKEN: token,
        },
      });
    expect(run(["--version"]).stdout.toString().trim()).toBe(version);
    const trades = run(["trades", "list", "-o", "json"]);
    expect(trades.exitCode).toBe(0);
    expect(JSON.parse(trades.stdout.toString()).length).toBeGreaterThan(0);
  });
});
