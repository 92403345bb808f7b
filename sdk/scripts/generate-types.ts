// Regenerates sdk/src/generated/types.ts from a server's /v1/openapi.json (a URL) or a saved copy (a file).
// Usage: bun sdk/scripts/generate-types.ts [http://127.0.0.1:3000 | openapi.json] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { emitTypes, type OpenApiDocument } from "./emit-types.ts";

export const TYPES_FILE = resolve(import.meta.dir, "../src/generated/types.ts");

/** The OpenAPI document served at `baseUrl`. */
export async function fetchOpenApi(baseUrl: string): Promise<OpenApiDocument> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/v1/openapi.json`);
  if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

if (import.meta.main) {
  const [source = "http://127.0.0.1:3000", flag] = process.argv.slice(2);
  const document = /^https?:\/\//.test(source)
    ? await fetchOpenApi(source)
    : (JSON.parse(readFileSync(source, "utf8")) as OpenApiDocument);
  const text = emitTypes(document);
  if (flag === "--check") {
    const current = readFileSync(TYPES_FILE, "utf8");
    if (current !== text) {
      console.error(`${TYPES_FILE} is out of date: run bun sdk/scripts/generate-types.ts ${source}`);
      process.exit(1);
    }
    console.log("types are up to date");
  } else {
    writeFileSync(TYPES_FILE, text);
    console.log(`wrote ${TYPES_FILE}`);
  }
}
