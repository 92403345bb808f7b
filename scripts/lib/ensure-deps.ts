// Runs `bun install` when node_modules is missing or stale, before anything imports npm packages.
// Uses only built-ins: it runs before the dependencies exist.
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");

function mtime(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

/** bun.lock and every workspace package.json: editing one of them means reinstalling. */
function manifests(): string[] {
  const root = path.join(ROOT, "package.json");
  const { workspaces = [] } = JSON.parse(readFileSync(root, "utf8")) as { workspaces?: string[] };
  return [
    path.join(ROOT, "bun.lock"),
    root,
    ...workspaces.map((w) => path.join(ROOT, w, "package.json")),
  ];
}

export function ensureDeps(): void {
  const modules = path.join(ROOT, "node_modules");
  const newest = Math.max(...manifests().map(mtime));
  if (existsSync(modules) && mtime(modules) >= newest) return;
  process.stderr.write(
    "[deps] node_modules is missing or older than bun.lock; running bun install\n",
  );
  const r = Bun.spawnSync([process.execPath, "install"], {
    cwd: ROOT,
    stdio: ["inherit", "inherit", "inherit"],
  });
  if (r.exitCode !== 0) {
    process.stderr.write(`[deps] bun install failed (exit ${r.exitCode}); fix that and retry\n`);
    process.exit(r.exitCode || 1);
  }
  // An install with nothing to do may leave node_modules' mtime alone; mark it fresh.
  const now = new Date();
  utimesSync(modules, now, now);
}
