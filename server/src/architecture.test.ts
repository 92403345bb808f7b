// The import graph has no circles. The folders of server/src are layers: imports between folders
// never form a cycle, so each folder can be read (and tested) with only the ones below it in mind.
// Files never import each other in a circle either, in the server, the SDK or the CLI: each file
// can be understood from the files it imports, type imports included.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = import.meta.dir;
const REPOSITORY = path.resolve(ROOT, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** The files a file imports by relative path (`import … from`, `export … from`, `import type`). */
function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s+"(\.[^"]+)"/g)]
    .map(([, specifier]) => path.resolve(path.dirname(file), specifier!))
    .filter((target) => existsSync(target));
}

const folderOf = (file: string): string => path.dirname(path.relative(ROOT, file));

/** folder → the folders its files import from. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(ROOT)) {
    for (const target of importsOf(file)) {
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** file → the files it imports, for every source file under `roots`. */
function fileGraph(roots: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of roots.flatMap((root) => sources(path.join(REPOSITORY, root)))) {
    graph.set(
      path.relative(REPOSITORY, file),
      new Set(importsOf(file).map((target) => path.relative(REPOSITORY, target))),
    );
  }
  return graph;
}

/** One cycle of the graph as a path, or undefined. */
function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, trail: string[]): string[] | undefined => {
    if (state.get(node) === "open") return [...trail.slice(trail.indexOf(node)), node];
    if (state.get(node) === "done") return undefined;
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...trail, node]);
      if (cycle) return cycle;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}

test("the folders of server/src import each other without a cycle", () => {
  const graph = folderGraph();
  expect(graph.size).toBeGreaterThan(5);
  expect(findCycle(graph)).toBeUndefined();
});

test("no file of the server, the SDK or the CLI imports itself through others", () => {
  const graph = fileGraph(["server/src", "sdk/src", "cli/src"]);
  expect(graph.size).toBeGreaterThan(100);
  expect(graph.get("server/src/routes/resource-routes.ts")).toContain(
    "server/src/routes/create-route.ts",
  );
  expect(findCycle(graph)).toBeUndefined();
});

test("the cycle finder finds a cycle", () => {
  expect(
    findCycle(
      new Map([
        ["a", new Set(["b"])],
        ["b", new Set(["c"])],
        ["c", new Set(["a"])],
      ]),
    ),
  ).toEqual(["a", "b", "c", "a"]);
});
