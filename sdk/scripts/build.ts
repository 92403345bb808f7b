// `bun run --cwd sdk build`: the npm package in dist/: ESM JavaScript and .d.ts from tsc (with
// relative imports rewritten to .js in both), for Node, browsers and bundlers. Deno and Bun can
// also use the TypeScript sources as they are (mod.ts).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
const dist = path.join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = path.resolve(root, "../node_modules/.bin/tsc");
const build = Bun.spawnSync([process.execPath, tsc, "-p", path.join(root, "tsconfig.build.json")], {
  stdout: "inherit",
  stderr: "inherit",
});
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

// tsc rewrites `./x.ts` to `./x.js` in JavaScript but keeps `.ts` in declarations; consumers' tsc
// resolves the declarations next to the .js files, so the specifiers must say .js there too.
function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else yield full;
  }
}
for (const file of files(dist)) {
  if (!file.endsWith(".d.ts")) continue;
  const text = readFileSync(file, "utf8");
  writeFileSync(
    file,
    text.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\.ts\2/g, "$1$2$3.js$2"),
  );
}
console.log(`built ${path.relative(process.cwd(), dist) || "dist"}`);
