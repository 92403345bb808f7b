// `bun run test`: type-checks and lints, then runs every test against a throw-away database it drops afterwards.
import { existsSync } from "node:fs";
import path from "node:path";
import { ensureDeps } from "./lib/ensure-deps.ts";

const root = path.resolve(import.meta.dir, "..");
const bun = process.execPath;
const inherit = ["inherit", "inherit", "inherit"] as const;

ensureDeps();
for (const check of ["typecheck", "lint"]) {
  const run = Bun.spawnSync([bun, "run", check], { cwd: root, stdio: [...inherit] });
  if (run.exitCode !== 0) process.exit(run.exitCode || 1);
}

// The SDK's suite also runs on Deno; like the database, a missing tool is installed, not assumed.
if (!Bun.which("deno")) {
  process.stderr.write("[deps] deno is missing; installing it with npm i -g deno\n");
  Bun.spawnSync(["npm", "install", "--global", "deno"], { cwd: root, stdio: [...inherit] });
}

const { provisionDatabaseServer, createDatabase, dropDatabase, withDatabase } = await import(
  "./lib/provision.ts"
);

// Signals only stop the running child; the finally below always drops and stops.
let interrupted = false;
let child: ReturnType<typeof Bun.spawn> | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true;
    child?.kill(signal);
  });
}

// TEST_DATABASE_URL only: a test run must never touch the database `start` uses.
const db = await provisionDatabaseServer({
  envUrl: process.env.TEST_DATABASE_URL || undefined,
  envName: "TEST_DATABASE_URL",
});
const name = `erp_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
const testUrl = withDatabase(db.url, name);

async function run(cmd: string[], env: Record<string, string>): Promise<number> {
  child = Bun.spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdio: [...inherit] });
  const code = await child.exited;
  child = undefined;
  return code;
}

let code = 1;
try {
  await createDatabase(db.url, name);
  process.stderr.write(`[db] test database ${name}\n`);
  const migrateCli = path.join(root, "server/src/db/migrate-cli.ts");
  code = existsSync(migrateCli) ? await run([bun, migrateCli], { DATABASE_URL: testUrl }) : 0;
  if (code === 0 && !interrupted) {
    // e2e tests start real server processes; bun's 5 s default per test is too tight for them.
    code = await run([bun, "test", "--timeout", "60000", ...process.argv.slice(2)], {
      TEST_DATABASE_URL: testUrl,
      TEST_DATABASE_SERVER_URL: db.url,
      // Anything that reads DATABASE_URL by mistake lands in the throw-away database too.
      DATABASE_URL: testUrl,
    });
  }
  if (interrupted && code === 0) code = 130;
} finally {
  await dropDatabase(db.url, name).catch((e) =>
    process.stderr.write(`[db] could not drop ${name}: ${e}\n`),
  );
  await db.stop();
}
process.exit(code);
