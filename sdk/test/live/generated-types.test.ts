// Drift check: the committed generated files must equal what the generator makes of the served OpenAPI document.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { useServer } from "@erp/testing/suite";
import { fetchOpenApi, generatedFiles } from "../../scripts/generate-types.ts";

const suite = useServer();

test("sdk/src/generated/* match the served /v1/openapi.json (regenerate with `bun run generate`)", async () => {
  for (const [file, text] of generatedFiles(await fetchOpenApi(suite.server.baseUrl))) {
    expect(readFileSync(file, "utf8")).toBe(text);
  }
});
