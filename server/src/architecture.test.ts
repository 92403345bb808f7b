// The import graph follows the layers of docs/architecture.md. The folders of server/src are
// layers: a folder imports only from those its row of the table there allows, and imports between
// folders never form a cycle, so each folder can be read (and tested) with only the ones below it
// in mind. Files never import each other in a circle either, in the server, the SDK or the CLI:
// each file can be understood from the files it imports, type imports and dynamic
// `import()`s included.
import { expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
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

/**
 * The files a file imports by relative path (`import … from`, `export … from`, `import type`, and a
 * dynamic `import("…")`: a module loaded later is still one the file depends on).
 */
function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from\s+|import\s*\(?\s*)"(\.[^"]+)"/g)]
    .map(([, specifier]) => path.resolve(path.dirname(file), specifier!))
    .filter((target) => existsSync(target));
}

/** folder → the folders its files import from. */
function folderGraph(root = ROOT): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(root)) {
    for (const target of importsOf(file)) {
      const from = path.dirname(path.relative(root, file));
      const to = path.dirname(path.relative(root, target));
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** file → the files it imports, for every source file under `roots` (folders of `base`). */
function fileGraph(roots: readonly string[], base = REPOSITORY): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of roots.flatMap((root) => sources(path.join(base, root)))) {
    graph.set(
      path.relative(base, file),
      new Set(importsOf(file).map((target) => path.relative(base, target))),
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

/** The "may use" column of the layer table in docs/architecture.md: folder → folders it may import. */
function layerTable(markdown: string): Map<string, Set<string> | "all"> {
  const table = new Map<string, Set<string> | "all">();
  for (const [, folder, uses] of markdown.matchAll(
    /^\| (`[a-z]+\/`|top level) \|.*\| ([^|]+) \|$/gm,
  )) {
    const name = folder === "top level" ? "." : folder!.slice(1, -2);
    const allowed = uses!.trim();
    table.set(
      name,
      allowed === "all" ? "all" : new Set(allowed === "—" ? [] : allowed.split(", ")),
    );
  }
  return table;
}

/** Each import between folders the table does not allow, and each folder it does not list. */
function layerViolations(
  graph: Map<string, Set<string>>,
  table: Map<string, Set<string> | "all">,
): string[] {
  const violations: string[] = [];
  for (const [from, targets] of graph) {
    const allowed = table.get(from);
    if (!allowed) violations.push(`${from}/ is not in the layer table`);
    else if (allowed !== "all")
      for (const to of targets) if (!allowed.has(to)) violations.push(`${from}/ imports ${to}/`);
  }
  return violations;
}

const LAYERS = layerTable(readFileSync(path.join(REPOSITORY, "docs/architecture.md"), "utf8"));

test("every import between folders of server/src is one the layer table of docs/architecture.md allows", () => {
  expect(LAYERS.get("base")).toEqual(new Set());
  expect(LAYERS.get(".")).toBe("all");
  expect(LAYERS.size).toBeGreaterThan(10);
  expect(layerViolations(folderGraph(), LAYERS)).toEqual([]);
});

test("a lower layer importing an upper one is caught (fixture)", () => {
  const fixture = mkdtempSync(path.join(tmpdir(), "layers-"));
  try {
    const write = (file: string, text: string): void => {
      mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
      writeFileSync(path.join(fixture, file), text);
    };
    write("base/config.ts", "export const config = {};\n");
    write(
      "routes/get-route.ts",
      'import { config } from "../base/config.ts";\nexport const route = config;\n',
    );
    write(
      "db/pool.ts",
      'import { config } from "../base/config.ts";\nexport const pool = config;\n',
    );
    expect(layerViolations(folderGraph(fixture), LAYERS)).toEqual([]);
    write(
      "db/pool.ts",
      'import { route } from "../routes/get-route.ts";\nexport const pool = route;\n',
    );
    expect(layerViolations(folderGraph(fixture), LAYERS)).toEqual(["db/ imports routes/"]);
    write(
      "extras/thing.ts",
      'import { config } from "../base/config.ts";\nexport const thing = config;\n',
    );
    expect(layerViolations(folderGraph(fixture), LAYERS)).toContain(
      "extras/ is not in the layer table",
    );
  } finally {
    rmSync(fixture, { recursive: true, force: true });
  }
});

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

test("a circle closed by a dynamic import() is caught (fixture)", () => {
  const fixture = mkdtempSync(path.join(tmpdir(), "circles-"));
  try {
    writeFileSync(
      path.join(fixture, "loader.ts"),
      'export const load = () => import("./loaded.ts");\n',
    );
    writeFileSync(path.join(fixture, "loaded.ts"), "export const loaded = 1;\n");
    expect(findCycle(fileGraph(["."], fixture))).toBeUndefined();
    writeFileSync(
      path.join(fixture, "loaded.ts"),
      'import type { load } from "./loader.ts";\nexport const loaded: typeof load | 1 = 1;\n',
    );
    const cycle = findCycle(fileGraph(["."], fixture));
    expect(new Set(cycle)).toEqual(new Set(["loader.ts", "loaded.ts"]));
  } finally {
    rmSync(fixture, { recursive: true, force: true });
  }
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
