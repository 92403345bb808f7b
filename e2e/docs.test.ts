// The user guide stays complete: every error code the API declares is explained in docs/errors.md,
// every collection is named where the guide lists them, and the README links the guides (and
// nothing outside the repository).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { COLLECTION_PATHS, RECORD_COLLECTIONS, segmentOf } from "@erp/testing/collections";
import { ROOT } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

const suite = useServer();

test("docs/errors.md explains every code the served document declares", async () => {
  const document = (await suite.api.get("/v1/openapi.json")).body as {
    paths: Record<string, Record<string, { responses?: Record<string, any> }>>;
  };
  const codes = new Set(["route_not_found", "method_not_allowed"]);
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const part of response.content?.["application/problem+json"]?.schema?.allOf ?? []) {
          for (const code of part.properties?.code?.enum ?? []) codes.add(code);
        }
      }
    }
  }
  const guide = readFileSync(path.join(ROOT, "docs/errors.md"), "utf8");
  expect([...codes].filter((code) => !guide.includes(`\`${code}\``))).toEqual([]);
  expect(codes.size).toBeGreaterThan(20);
});

test("the README and docs/concepts.md name every collection the API serves", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8")
    .split("\n\n")[1]!
    .replace(/\s+/g, " ");
  expect(RECORD_COLLECTIONS.map(segmentOf).filter((name) => !readme.includes(name))).toEqual([]);
  const concepts = readFileSync(path.join(ROOT, "docs/concepts.md"), "utf8");
  expect(COLLECTION_PATHS.filter((collection) => !concepts.includes(`\`${collection}\``))).toEqual(
    [],
  );
});

test("the README links every guide in docs/ and nothing outside the repository", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  expect(readme).not.toContain("../shared");
  const index = readFileSync(path.join(ROOT, "docs/README.md"), "utf8");
  for (const [, link] of index.matchAll(/\]\(([^)#]+)\)/g))
    expect(existsSync(path.join(ROOT, "docs", link!)), link).toBe(true);
  expect(readme).toContain("docs/README.md");
});
