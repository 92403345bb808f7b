// Every documented example runs: each operation sent exactly as the served document shows it (its
// example body and path values, with ids of real records made first) answers 2xx with a body
// that fits the document; and docs/api.md shows one curl call per operation with that answer.
// `UPDATE_DOCS=1 bun run test e2e/spec-examples.test.ts` rewrites that section from a fresh run.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseExamples, renderExamples, withExamples } from "@erp/testing/api-examples-doc";
import { newCompany } from "@erp/testing/company";
import { ExampleRunner, type ExampleExchange } from "@erp/testing/example-requests";
import { OpenApiContract } from "@erp/testing/openapi-contract";
import { ROOT } from "@erp/testing/server";
import { documentedHostsEnv } from "@erp/testing/documented-hosts";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(60_000);

// The documented webhook URL is https://example.com/…: this sandbox resolves no public name, so
// the server may not look it up (deliveries to it fail and are retried, unseen by the test).
const suite = useServer({ env: documentedHostsEnv() });
const API_DOC = path.join(ROOT, "docs/api.md");

type Json = Record<string, any>;

let document: Json;
let contract: OpenApiContract;
let exchanges: ExampleExchange[];

/** Problems of an answer against the document: undeclared status or media type, or a body that misses its schema. */
const misfits = (
  method: string,
  path: string,
  status: number,
  contentType: string,
  body: unknown,
  text: string,
): string[] =>
  contract.check(method, path, {
    status,
    headers: new Headers({ "content-type": contentType }),
    body,
    text,
  });

/** Ids differ from run to run: /v1/projects/17 and {"project_id": 17} read as /v1/projects/N and {"project_id": 0}. */
// Ids differ from run to run, and so do a signed link's expiry and signature.
const samePath = (path: string): string =>
  path
    .replace(/\/[0-9]+(?=\/|$|\?)/g, "/N")
    .replace(/expires=[0-9]+&signature=[\w-]+/, "expires=T&signature=S");
const sameBody = (body: unknown): unknown =>
  body && typeof body === "object" && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([key, value]) => [
          key,
          key.endsWith("_id") && typeof value === "number" ? 0 : value,
        ]),
      )
    : body;

beforeAll(async () => {
  const served = await suite.api.get("/v1/openapi.json", { token: null });
  document = served.body;
  contract = new OpenApiContract(document);
  const { token } = await newCompany();
  exchanges = await new ExampleRunner(document, suite.api.as(token)).runAll();
  if (process.env.UPDATE_DOCS === "1")
    writeFileSync(API_DOC, withExamples(readFileSync(API_DOC, "utf8"), renderExamples(exchanges)));
});

describe("documented examples", () => {
  test("each operation's example request, sent as documented, answers 2xx with a body that fits the document", () => {
    const operations = Object.values(document.paths as Record<string, Json>).reduce(
      (count, item) => count + Object.keys(item).length,
      0,
    );
    expect(exchanges).toHaveLength(operations);
    expect(
      exchanges
        .filter((e) => e.status < 200 || e.status > 299)
        .map((e) => `${e.method} ${e.path}: ${e.status} ${e.text.slice(0, 300)}`),
    ).toEqual([]);
    expect(
      exchanges.flatMap((e) =>
        misfits(e.method, e.path, e.status, e.contentType, e.answer, e.text),
      ),
    ).toEqual([]);
    // Creates and upserts of a new external id create: their documented normal answer.
    const creating = exchanges.filter(
      (e) => document.paths[e.template][e.method.toLowerCase()].responses["201"],
    );
    expect(
      creating.filter((e) => e.status !== 201).map((e) => `${e.operationId}: ${e.status}`),
    ).toEqual([]);
    console.log(
      `${exchanges.length} operations sent as documented: all 2xx (${creating.length} created), ` +
        `every answer fits its schema`,
    );
  });

  test("docs/api.md shows one curl call per operation, sending its example and showing the answer it gets", () => {
    const shown = parseExamples(readFileSync(API_DOC, "utf8"));
    expect(
      shown.map((example) => example.operationId),
      "run UPDATE_DOCS=1 bun run test e2e/spec-examples.test.ts",
    ).toEqual(exchanges.map((e) => e.operationId));
    for (const [index, example] of shown.entries()) {
      const live = exchanges[index]!;
      expect(
        `${example.method} ${example.template} ${samePath(example.path)}`,
        example.operationId,
      ).toBe(`${live.method} ${live.template} ${samePath(live.path)}`);
      expect(sameBody(example.body), example.operationId).toEqual(sameBody(live.body));
      expect(example.status, example.operationId).toBe(live.status);
      if (example.answer !== undefined)
        expect(
          misfits(
            example.method,
            example.path,
            example.status,
            "application/json",
            example.answer,
            JSON.stringify(example.answer),
          ),
          example.operationId,
        ).toEqual([]);
    }
  });
});
