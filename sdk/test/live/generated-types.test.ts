// Drift check: the committed generated types must equal what the generator makes of the served OpenAPI document.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { useServer } from "@erp/testing/suite";
import { emitTypes } from "../../scripts/emit-types.ts";
import { fetchOpenApi, TYPES_FILE } from "../../scripts/generate-types.ts";

const suite = useServer();

test("sdk/src/generated/types.ts matches the served /v1/openapi.json (regenerate with sdk/scripts/generate-types.ts)", async () => {
  const served = emitTypes(await fetchOpenApi(suite.server.baseUrl));
  expect(readFileSync(TYPES_FILE, "utf8")).toBe(served);
});
