// An S3-compatible server of a test's own, in a process of its own, spoken to over HTTP with the S3
// protocol: s3rver (npm, a devDependency of this package) on a free loopback port, its data in a
// temporary directory, one bucket made at start. Its credentials are s3rver's fixed ones.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { S3Client, type Subprocess } from "bun";
import { freePort } from "../../scripts/lib/provision.ts";

const BIN = path.resolve(import.meta.dir, "../node_modules/s3rver/bin/s3rver.js");

export interface S3Server {
  /** The environment a server needs to keep attachments in the bucket under `prefix`. */
  env(prefix: string): Record<string, string>;
  bucket: string;
  /** The keys of every object in the bucket now, as a ListObjectsV2 request answers them. */
  keys(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = "erp-attachments"): Promise<S3Server> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-s3rver-"));
  const port = await freePort();
  const child: Subprocess = Bun.spawn(
    [
      process.execPath,
      BIN,
      "-d",
      dir,
      "-a",
      "127.0.0.1",
      "-p",
      String(port),
      "-s",
      "--configure-bucket",
      bucket,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`s3rver exited with ${child.exitCode}`);
    const listed = await fetch(`${endpoint}/${bucket}`).then(
      (r) => r.ok,
      () => false,
    );
    if (listed) break;
    if (Date.now() > deadline) throw new Error("s3rver did not answer within 30 s");
    await Bun.sleep(100);
  }
  return {
    bucket,
    env: (prefix) => ({
      ATTACHMENTS_STORE: `s3://${bucket}/${prefix}`,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL: endpoint,
    }),
    async keys() {
      const client = new S3Client({
        bucket,
        endpoint,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
        region: "us-east-1",
      });
      const listed = await client.list({ maxKeys: 1000 });
      return (listed.contents ?? []).map((object) => object.key);
    },
    async stop() {
      child.kill();
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
