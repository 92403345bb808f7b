// Regenerates sdk/src/generated/ (types.ts, collections.ts) from a server's /v1/openapi.json (a URL)
// or a saved copy (a file). `bun run generate` does this for the checkout's own server.
// Usage: bun sdk/scripts/generate-types.ts [http://127.0.0.1:3000 | openapi.json] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { emitCollections } from "./emit-collections.ts";
import { emitTypes, type OpenApiDocument } from "./emit-types.ts";

export const TYPES_FILE = resolve(import.meta.dir, "../src/generated/types.ts");
export const COLLECTIONS_FILE = resolve(import.meta.dir, "../src/generated/collections.ts");

/** The OpenAPI document served at `baseUrl`. */
export async function fetchOpenApi(baseUrl: string): Promise<OpenApiDocument> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/v1/openapi.json`);
  if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/** Every generated file and the text the document makes of it. */
export function generatedFiles(document: OpenApiDocument): [file: string, text: string][] {
  return [
    [TYPES_FILE, emitTypes(document)],
    [COLLECTIONS_FILE, emitCollections(document)],
  ];
}

if (import.meta.main) {
  const [source = "http://127.0.0.1:3000", flag] = process.argv.slice(2);
  const document = /^https?:\/\//.test(source)
    ? await fetchOpenApi(source)
    : (JSON.parse(readFileSync(source, "utf8")) as OpenApiDocument);
  for (const [file, text] of generatedFiles(document)) {
    if (flag === "--check") {
      if (readFileSync(file, "utf8") !== text) {
        console.error(`${file} is out of date: run bun run generate`);
        process.exit(1);
      }
    } else {
      writeFileSync(file, text);
      console.log(`wrote ${file}`);
    }
  }
  if (flag === "--check") console.log("generated files are up to date");
}
