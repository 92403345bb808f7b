// GET /v1/docs: the interactive reference (Scalar, as @elysiajs/openapi renders it), with its
// script served from here so the page works without internet access.
import { ScalarRender } from "@elysiajs/openapi/scalar";
import { fileURLToPath } from "node:url";
import { specificationRoute } from "./specification-route.ts";

const SCRIPT_PATH = "/v1/docs/scalar.js";
const SCRIPT_FILE = fileURLToPath(
  new URL("./browser/standalone.js", import.meta.resolve("@scalar/api-reference")),
);

function page(): string {
  return ScalarRender(
    {
      title: "Construction ERP API reference",
      description: "Interactive reference of the Construction ERP API, with try-it.",
      version: "1.0.0",
    },
    {
      url: "/v1/openapi.json",
      cdn: SCRIPT_PATH,
      // Nothing may leave this server: no web fonts, telemetry, AI agent or developer toolbar.
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      showDeveloperTools: "never",
      _integration: "elysiajs",
    } as unknown as Parameters<typeof ScalarRender>[1],
  );
}

export function docsRoutes() {
  return specificationRoute(
    "docs",
    "/v1/docs",
    {
      operationId: "getDocs",
      summary: "Interactive reference",
      description:
        "This document rendered by Scalar, with try-it. Its script is served by this server, so " +
        "it works offline. No token, not metered.",
      // The page is text/html only: no `response` schema, which Elysia would also list as text/plain.
      responses: {
        200: {
          description: "An HTML page.",
          content: { "text/html": { schema: { type: "string" } } },
        },
      },
    },
    () => new Response(page(), { headers: { "content-type": "text/html; charset=utf-8" } }),
  ).get(
    SCRIPT_PATH,
    () =>
      new Response(Bun.file(SCRIPT_FILE), {
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "public, max-age=3600",
        },
      }),
    { detail: { hide: true } },
  );
}
