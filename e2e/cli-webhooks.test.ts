// `erp webhooks`: endpoints from the command line, a test ping, a replay and a rotation with an
// overlap, against a live server and a local receiver.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { verifyWebhook } from "../sdk/mod.ts";
import { erpFor } from "@erp/testing/cli";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";

const suite = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_POLL_MS: "100" } });
const received: { body: string; signature: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    received.push({
      body: await request.text(),
      signature: request.headers.get("erp-signature") ?? "",
    });
    return new Response("ok");
  },
});
let cli: ReturnType<typeof erpFor>;

beforeAll(async () => {
  cli = erpFor(suite.server.baseUrl, (await newCompany()).token);
});
afterAll(() => receiver.stop(true));

const json = (text: string): any => JSON.parse(text);

test("erp webhooks create, list, test, replay and rotate-secret", async () => {
  const url = `http://127.0.0.1:${receiver.port}/hooks`;
  const made = await cli(["webhooks", "create", url, "--events", "client.*", "--output", "json"]);
  expect(made.code).toBe(0);
  const { id, secret } = json(made.stdout);
  expect(secret).toMatch(/^whsec_/);

  const listed = await cli(["webhooks", "list", "--output", "json"]);
  expect(json(listed.stdout).map((endpoint: { id: number }) => endpoint.id)).toEqual([id]);
  expect(listed.stdout).not.toContain(secret);

  const tested = await cli(["webhooks", "test", String(id), "--output", "json"]);
  expect(tested.code).toBe(0);
  expect(json(tested.stdout)).toMatchObject({ status: "delivered", status_code: 200 });
  expect(await verifyWebhook(received[0]!.body, received[0]!.signature, secret)).toBe(true);

  const usage = await cli(["webhooks", "replay", String(id)]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("exactly one of --after and --since");
  const dry = await cli([
    "webhooks",
    "replay",
    String(id),
    "--since",
    "2020-01-01T00:00:00Z",
    "--dry-run",
    "--output",
    "json",
  ]);
  expect(dry.code).toBe(0);
  expect(json(dry.stdout)).toEqual({ queued: 0, dry_run: true });

  const rotated = await cli([
    "webhooks",
    "rotate-secret",
    String(id),
    "--expires-in",
    "60",
    "--output",
    "json",
  ]);
  expect(rotated.code).toBe(0);
  expect(json(rotated.stdout).secret).not.toBe(secret);
  expect(json(rotated.stdout).previous_secret_expires_at).toBeString();
  const tooLong = await cli(["webhooks", "rotate-secret", String(id), "--expires-in", "999999"]);
  expect(tooLong.code).toBe(2);
});
