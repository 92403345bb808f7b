// The live checks in headless Chromium: a `bun build --target=browser` bundle served from another
// origin (127.0.0.1, another port), so every call to the API is a cross-origin fetch with preflights.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Browser, launchChromium } from "@erp/testing/browser";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { checks, type LiveContext } from "./checks.ts";
import type { CheckResult } from "./run-in-browser.ts";

const suite = useServer();
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>SDK live checks</title>
<script type="module" src="/checks.js"></script></head><body></body></html>`;

let site: ReturnType<typeof Bun.serve>;
let browser: Browser;

beforeAll(async () => {
  const build = await Bun.build({
    entrypoints: [join(import.meta.dir, "run-in-browser.ts")],
    target: "browser",
    format: "esm",
  });
  if (!build.success) throw new AggregateError(build.logs, "bun build --target=browser failed");
  const bundle = await build.outputs[0]!.text();
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === "/")
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (pathname === "/checks.js")
        return new Response(bundle, {
          headers: { "content-type": "text/javascript; charset=utf-8" },
        });
      return new Response("not found", { status: 404 });
    },
  });
  browser = await launchChromium("run the SDK's live checks");
});

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
});

describe("SDK on a live server (Chromium)", () => {
  test("Chromium runs every live check from a bun build --target=browser bundle on another " +
    "origin, asking no other host", async () => {
    const apiOrigin = new URL(suite.server.baseUrl).origin;
    const pageOrigin = `http://127.0.0.1:${site.port}`;
    expect(pageOrigin).not.toBe(apiOrigin);
    const context: LiveContext = {
      baseUrl: suite.server.baseUrl,
      token: (await newCompany()).token,
    };

    const browserContext = await browser.newContext();
    const requested: string[] = [];
    const pageErrors: string[] = [];
    browserContext.on("request", (request) => {
      requested.push(request.url());
    });
    const page = await browserContext.newPage();
    page.on("pageerror", (error) => {
      pageErrors.push(error.stack ?? error.message);
    });
    await page.goto(`${pageOrigin}/`, { waitUntil: "load" });
    await page.waitForFunction(() => "runLiveChecks" in globalThis, undefined, { timeout: 5_000 });
    const results = await page.evaluate(
      (ctx) =>
        (
          globalThis as unknown as { runLiveChecks(c: LiveContext): Promise<CheckResult[]> }
        ).runLiveChecks(ctx),
      context,
    );
    await browserContext.close();

    const failed = results.filter((r) => !r.ok);
    console.log(`Chromium: ${results.length - failed.length} passed, ${failed.length} failed`);
    for (const r of failed) console.log(`not ok ${r.name}\n${r.error}`);
    expect(failed).toEqual([]);
    expect(results.map((r) => r.name)).toEqual(checks.map((c) => c.name));
    expect(pageErrors).toEqual([]);

    const hosts = requested
      .filter((url) => !/^(data|blob|about):/.test(url))
      .map((url) => new URL(url).hostname);
    expect([...new Set(hosts)]).toEqual(["127.0.0.1"]);
    expect(requested.filter((url) => url.startsWith(`${apiOrigin}/v1/`)).length).toBeGreaterThan(
      checks.length,
    );
  }, 20_000);
});
