// The spec surfaces: open without a token, unmetered, lint-clean, and the docs page works offline.
import { describe, expect, test } from "bun:test";
import { newCompany } from "@erp/testing/company";
import { launchChromium } from "@erp/testing/browser";
import { runTool, scratchDir } from "@erp/testing/spec-tools";
import { useServer } from "@erp/testing/suite";
import { ROOT } from "@erp/testing/server";
import path from "node:path";

const suite = useServer();

const SURFACES = [
  { path: "/v1/openapi.json", type: "application/json" },
  { path: "/v1/docs", type: "text/html" },
  { path: "/v1/collection.json", type: "application/json" },
];

describe("spec surfaces", () => {
  test("the OpenAPI document, the reference and the collection answer without a token", async () => {
    for (const surface of SURFACES) {
      const response = await suite.api.get(surface.path, { token: null });
      expect(response.status, surface.path).toBe(200);
      expect(response.headers.get("content-type"), surface.path).toStartWith(surface.type);
    }
    const document = (await suite.api.get("/v1/openapi.json")).body;
    expect(document.openapi).toStartWith("3.1.");
    const collection = (await suite.api.get("/v1/collection.json")).body;
    expect(collection.info.schema).toBe(
      "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    );
    expect(collection.variable.map((variable: { key: string }) => variable.key)).toEqual([
      "baseUrl",
      "token",
    ]);
  });

  test("the docs page loads its script from this server", async () => {
    const page = await suite.api.get("/v1/docs", { token: null });
    const scripts = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(
      (match) => match[1]!,
    );
    expect(scripts).toEqual(["/v1/docs/scalar.js"]);
    const script = await fetch(`${suite.server.baseUrl}/v1/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toStartWith("text/javascript");
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  test("the spec surfaces are not metered, even with a token", async () => {
    const { token } = await newCompany();
    const api = suite.api.as(token);
    await api.get("/v1/projects");
    const requestsNow = async (): Promise<number> => {
      await Bun.sleep(2_500); // counters may lag by up to 2 s
      const usage = await api.get("/v1/usage");
      expect(usage.status).toBe(200);
      return usage.body.data.requests;
    };
    const before = await requestsNow();
    expect(before).toBeGreaterThanOrEqual(1);
    for (let round = 0; round < 3; round += 1) {
      for (const surface of SURFACES) expect((await api.get(surface.path)).status).toBe(200);
    }
    expect(await requestsNow()).toBe(before);
  }, 20_000);

  test("spectral lint with the spectral:oas ruleset finds nothing in the served document", async () => {
    const scratch = scratchDir("erp-spectral-");
    try {
      const file = scratch.write("openapi.json", (await suite.api.get("/v1/openapi.json")).text);
      // Every operation names its scope in its bearer security requirement, which OpenAPI 3.1
      // allows for any scheme (docs/tokens.md); spectral's rule still takes scopes for OAuth
      // flows only, so it is the one rule turned off. Every other rule runs.
      const ruleset = scratch.write(
        ".spectral.yaml",
        'extends: ["spectral:oas"]\nrules:\n  oas3-operation-security-defined: off\n',
      );
      const run = await runTool("spectral", [
        "lint",
        file,
        "--ruleset",
        ruleset,
        "--format",
        "json",
        "--quiet",
      ]);
      const problems = JSON.parse(run.stdout.trim() || "[]") as {
        code: string;
        message: string;
        path: string[];
      }[];
      console.log(`spectral lint: ${problems.length} problems`);
      expect(problems.map((p) => `${p.code} at ${p.path.join(".")}: ${p.message}`)).toEqual([]);
    } finally {
      scratch.remove();
    }
  }, 60_000);

  test("redocly lint with its recommended rules finds nothing in the served document", async () => {
    const scratch = scratchDir("erp-openapi-");
    try {
      const file = scratch.write("openapi.json", (await suite.api.get("/v1/openapi.json")).text);
      const run = await runTool("redocly", [
        "lint",
        file,
        "--config",
        path.join(ROOT, "redocly.yaml"),
        "--format",
        "json",
      ]);
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string }[];
      };
      const errors = report.problems.filter((problem) => problem.severity === "error");
      console.log(
        `redocly lint: ${report.totals.errors} errors, ${report.totals.warnings} warnings ` +
          `(${[...new Set(report.problems.map((p) => p.ruleId))].join(", ") || "none"})`,
      );
      expect(errors).toEqual([]);
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(run.exitCode).toBe(0);
    } finally {
      scratch.remove();
    }
  }, 30_000);

  test("the docs page renders the operations in headless Chromium and asks no other host", async () => {
    const browser = await launchChromium("check /v1/docs");
    try {
      const page = await browser.newPage();
      const origin = new URL(suite.server.baseUrl).origin;
      const requested: string[] = [];
      page.on("request", (request) => {
        requested.push(request.url());
      });
      await page.goto(`${suite.server.baseUrl}/v1/docs`, { waitUntil: "load" });
      await page.getByText("Health check").first().waitFor({ timeout: 20_000 });
      await page.getByRole("button", { name: "Open Group - projects" }).first().click();
      await page.getByText("Create a project").first().waitFor({ timeout: 10_000 });
      for (const operation of [
        "List projects",
        "Get one project",
        "Update a project (merge)",
        "Delete a project (soft)",
      ]) {
        expect(await page.getByText(operation).count(), operation).toBeGreaterThan(0);
      }
      const elsewhere = requested.filter(
        (url) => !/^(data|blob|about):/.test(url) && new URL(url).origin !== origin,
      );
      expect(elsewhere).toEqual([]);
      expect(requested).toContain(`${origin}/v1/openapi.json`);
    } finally {
      await browser.close();
    }
    // 9 s alone; one full run on a loaded machine took 60 s (Chromium's start and layout of the
    // whole reference share the 2 cores).
  }, 120_000);
});
