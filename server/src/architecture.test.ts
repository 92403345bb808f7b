// The folders of server/src are layers: imports between folders never form a cycle, so each
// folder can be read (and tested) with only the ones below it in mind.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = import.meta.dir;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

const folderOf = (file: string): string => path.dirname(path.relative(ROOT, file));

/** folder → the folders its files import from. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(ROOT)) {
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
      const from = folderOf(file);
      const to = folderOf(path.resolve(path.dirname(file), specifier!));
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
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

test("the cycle finder finds a cycle", () => {
  expect(findCycle(new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])]]))).toEqual(["a", "b", "c", "a"]);
});
