// Stoplight Prism's validation proxy (`prism proxy <document> <upstream>`), as API users run it in
// front of a server to check its traffic against the OpenAPI document: it forwards every request
// and reports what disagrees with the document in an `sl-violations` header.
import path from "node:path";
import { freePort } from "../../scripts/lib/provision.ts";

export interface PrismProxy {
  baseUrl: string;
  stop(): Promise<void>;
}

const PRISM = path.resolve(import.meta.dir, "../node_modules/.bin/prism");

export async function startPrismProxy(documentFile: string, upstream: string): Promise<PrismProxy> {
  const port = await freePort();
  const child = Bun.spawn([process.execPath, PRISM, "proxy", documentFile, upstream, "--host", "127.0.0.1", "--port", String(port)], {
    stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>): Promise<void> => {
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      output += new TextDecoder().decode(value);
    }
  };
  void collect(child.stdout);
  void collect(child.stderr);
  const deadline = Date.now() + 45_000;
  while (!output.includes("Prism is listening")) {
    if (child.exitCode !== null) throw new Error(`prism proxy exited (${child.exitCode}):\n${output.slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`prism proxy did not start within 45 s:\n${output.slice(-2000)}`);
    }
    await Bun.sleep(100);
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill();
      await child.exited;
    },
  };
}
