// The SDK as users get it: `npm pack` of the built package, installed into a throw-away project
// whose smoke script runs against a live server on Node, Bun, Deno and in a browser page (the
// installed files served as they are, with an import map), a strict TypeScript consumer that
// type-checks against the packed .d.ts, and Deno's publish dry-run of the sources.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium } from "@erp/testing/browser";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { DENO } from "./deno.ts";

setDefaultTimeout(180_000);

const SDK = path.resolve(import.meta.dir, "../..");
const ROOT = path.resolve(SDK, "..");
const suite = useServer();
let project: string;

const SMOKE = `import { ErpClient, NotFoundError, verifyWebhook } from "@erp/sdk";
const env = globalThis.process?.env ?? globalThis.ERP_ENV;
const erp = new ErpClient({ baseUrl: env.ERP_BASE_URL, token: env.ERP_TOKEN });
const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : globalThis.process ? "node" : "browser";
const made = await erp.projects.create({ name: "Packed " + runtime });
const project = await erp.projects.get(made.id);
if (project.id !== made.id || project.status !== "DRAFT") throw new Error("get returned " + JSON.stringify(project));
const batch = await erp.clients.batch([{ name: "One" }, { name: "" }]);
if (batch.results.map((r) => r.status).join() !== "201,422") throw new Error("batch " + JSON.stringify(batch));
let seen = 0;
for await (const p of erp.projects.list({ fields: ["name"] })) seen += p.id === made.id ? 1 : 0;
if (seen !== 1) throw new Error("list did not find the project once");
await erp.projects.delete(made.id);
const history = await erp.projects.listPage({ include_deleted: true, fields: ["name"] });
if (!history.data.some((p) => p.id === made.id)) throw new Error("include_deleted: true did not list the " +
"deleted project");
try {
  await erp.projects.get(made.id);
  throw new Error("still there");
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
}
if (await verifyWebhook("{}", "t=1,v1=00", "whsec_x")) throw new Error("a bad signature verified");
console.log("packed sdk ok");
`;

/** A strict consumer of the packed types; `eventTypes` are the served document's, so each gets its case. */
const consumer = (
  eventTypes: readonly string[],
): string => `import { ErpClient, type Event, type Project, type ValidationError, type BatchResult } from "@erp/sdk";
const erp = new ErpClient({ baseUrl: "https://erp.example.com", token: "erp_x" });
/** Exhaustive: without a case for every event type, the never below does not compile. */
export function action(event: Event): string {
  switch (event.type) {
${eventTypes
  .map(
    (type) =>
      `    case ${JSON.stringify(type)}: return ` + `${JSON.stringify(type.split(".")[1])};`,
  )
  .join("\n")}
    default: {
      const unknown: never = event.type;
      return unknown;
    }
  }
}
export async function names(): Promise<string[]> {
  const deleted = await erp.workers.list({ include_deleted: true, fields: ["name"] }).toArray();
  const page = await erp.projects.listPage({ status: "ACTIVE", fields: ["name"] });
  const project: Project = await erp.projects.get(1);
  const result: BatchResult = await erp.workers.batch([{ name: "A" }], { onConflict: "update" });
  // @ts-expect-error a project has no field "colour"
  await erp.projects.create({ name: "X", colour: "red" });
  const rentals = await erp.equipment.rentals(3).listPage();
  const error: ValidationError | undefined = undefined;
  return [
    ...deleted.map((w) => w.name), ...page.data.map((p) => p.name), project.name,
    String(result.created), String(rentals.data.length), String(error),
  ];
}
`;

function run(
  command: string[],
  cwd: string,
  env: Record<string, string> = {},
): { code: number; output: string } {
  const result = Bun.spawnSync(command, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return {
    code: result.exitCode ?? 1,
    output: result.stdout.toString() + result.stderr.toString(),
  };
}

beforeAll(async () => {
  const packDir = mkdtempSync(path.join(tmpdir(), "erp-sdk-pack-"));
  const pack = run(["npm", "pack", "--pack-destination", packDir], SDK);
  expect(pack.code).toBe(0);
  const tarball = path.join(packDir, readdirSync(packDir).find((name) => name.endsWith(".tgz"))!);
  project = mkdtempSync(path.join(tmpdir(), "erp-sdk-consumer-"));
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  const install = run(["npm", "install", "--no-audit", "--no-fund", "--offline", tarball], project);
  expect(install.code).toBe(0);
  writeFileSync(path.join(project, "smoke.mjs"), SMOKE);
  const eventTypes = (await suite.api.get("/v1/openapi.json")).body.components.schemas.EventType
    .enum as string[];
  writeFileSync(path.join(project, "consumer.ts"), consumer(eventTypes));
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        lib: ["ES2022", "DOM"],
        types: [],
      },
      files: ["consumer.ts"],
    }),
  );
});

describe("the packed SDK", () => {
  const smoke = async (command: string[]): Promise<void> => {
    const { token } = await newCompany({
      addons: ["api", "estimates", "subcontractors", "equipment"],
    });
    const result = run(command, project, { ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token });
    if (result.code !== 0) console.error(result.output);
    expect(result.output).toContain("packed sdk ok");
  };

  test("a plain Node project installs the tarball and runs the smoke script", () =>
    smoke(["node", "smoke.mjs"]));
  test("a Bun project runs it from the same install", () => smoke([process.execPath, "smoke.mjs"]));
  test.skipIf(!DENO)("a Deno project runs it from the same install", async () => {
    await smoke([
      DENO!,
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-read",
      "smoke.mjs",
    ]);
  });

  test("a browser page on another origin runs it from the installed files (import map, no bundler)", async () => {
    const manifest = JSON.parse(
      readFileSync(path.join(project, "node_modules/@erp/sdk/package.json"), "utf8"),
    );
    const entry = `/node_modules/@erp/sdk/${String(manifest.exports["."].import).replace(/^\.\//, "")}`;
    const { token } = await newCompany({
      addons: ["api", "estimates", "subcontractors", "equipment"],
    });
    const env = { ERP_BASE_URL: suite.server.baseUrl, ERP_TOKEN: token };
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>packed SDK</title>
<script type="importmap">${JSON.stringify({ imports: { "@erp/sdk": entry } })}</script>
<script>globalThis.ERP_ENV = ${JSON.stringify(env)};</script>
<script type="module" src="/smoke.mjs"></script></head><body></body></html>`;
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const { pathname } = new URL(request.url);
        if (pathname === "/")
          return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
        const file = Bun.file(path.join(project, path.normalize(pathname)));
        if (!(await file.exists())) return new Response("not found", { status: 404 });
        return new Response(file, {
          headers: { "content-type": "text/javascript; charset=utf-8" },
        });
      },
    });
    const browser = await launchChromium("run the packed SDK in a browser");
    try {
      const tab = await browser.newPage();
      const said: string[] = [];
      const outcome = new Promise<string>((resolve) => {
        tab.on("console", (message) => {
          said.push(message.text());
          if (message.text() === "packed sdk ok") resolve("ok");
        });
        tab.on("pageerror", (error) => resolve(error.stack ?? error.message));
        setTimeout(() => resolve("no answer in 15 s"), 15_000);
      });
      await tab.goto(`http://127.0.0.1:${site.port}/`);
      const result = await outcome;
      if (result !== "ok") console.error(said.join("\n"));
      expect(result).toBe("ok");
    } finally {
      await browser.close();
      site.stop(true);
    }
  });

  test(
    "a strict TypeScript consumer type-checks against the packed .d.ts on Node (NodeNext): " +
      "boolean filters, an exhaustive switch over event types",
    () => {
      const node = run(["node", "--version"], project);
      expect(Number(/^v(\d+)/.exec(node.output)?.[1])).toBeGreaterThanOrEqual(20);
      const result = run(
        ["node", path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
        project,
      );
      if (result.code !== 0) console.error(result.output);
      expect(result.code).toBe(0);
      console.log(`packed .d.ts: tsc --strict on Node ${node.output.trim()} accepts the consumer`);
      // The switch is checked: without one of its cases it no longer compiles.
      const source = readFileSync(path.join(project, "consumer.ts"), "utf8");
      writeFileSync(
        path.join(project, "consumer.ts"),
        source.replace(/^ {4}case "project\.created".*\n/m, ""),
      );
      try {
        const missing = run(
          ["node", path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
          project,
        );
        expect(missing.output).toContain("is not assignable to type 'never'");
      } finally {
        writeFileSync(path.join(project, "consumer.ts"), source);
      }
    },
  );

  test.skipIf(!DENO)(
    "deno publish --dry-run accepts the sources (explicit types, no slow types)",
    () => {
      const result = run([DENO!, "publish", "--dry-run", "--allow-dirty"], SDK);
      if (result.code !== 0) console.error(result.output);
      expect(result.code).toBe(0);
    },
  );
});
