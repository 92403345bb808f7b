// `bun run start` on an empty database: migrates, prints a demo token and the docs URL, serves.
import { afterAll, expect, test } from "bun:test";
import { createDatabase, dropDatabase, withDatabase } from "../scripts/lib/provision.ts";
import { ROOT } from "@erp/testing/server";

const serverUrl = process.env.TEST_DATABASE_SERVER_URL;
const name = `erp_start_${Date.now()}`;

afterAll(async () => {
  if (serverUrl) await dropDatabase(serverUrl, name);
});

test("first start on an empty database prints a demo token that works, and the docs URL", async () => {
  if (!serverUrl)
    throw new Error("TEST_DATABASE_SERVER_URL is not set: run the tests with `bun run test`");
  await createDatabase(serverUrl, name);
  const child = Bun.spawn([process.execPath, "run", "start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: withDatabase(serverUrl, name),
      PORT: "0",
      LOG_LEVEL: "warn",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 30_000;
  while (!/demo company token.*: (erp_\S+)/.test(output) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
  }
  try {
    const base = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    const token = /demo company token.*: (erp_\S+)/.exec(output)?.[1];
    expect(base).toBeDefined();
    expect(token).toBeDefined();
    expect(output).toContain(`${base}/v1/docs`);
    const response = await fetch(`${base}/v1/equipment`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
  } finally {
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  }
});
