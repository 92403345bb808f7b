// Stoplight Prism, as API users run it: its validation proxy (`prism proxy <document> <upstream>`)
// in front of a server forwards every request and reports what disagrees with the document in an
// `sl-violations` header; its mock server (`prism mock <document>`) answers from the document alone.
import path from "node:path";
import { freePort } from "../../scripts/lib/provision.ts";
import { streamText } from "./stream-text.ts";

export interface Prism {
  baseUrl: string;
  stop(): Promise<void>;
}

const PRISM = path.resolve(import.meta.dir, "../node_modules/.bin/prism");

/** `prism proxy` in front of `upstream`, or (without one) `prism mock`; Prism's JavaScript runs on Bun. */
export async function startPrism(documentFile: string, upstream?: string): Promise<Prism> {
  const port = await freePort();
  const mode = upstream === undefined ? ["mock", documentFile] : ["proxy", documentFile, upstream];
  const child = Bun.spawn(
    [process.execPath, PRISM, ...mode, "--host", "127.0.0.1", "--port", String(port)],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const stdout = streamText(child.stdout);
  const stderr = streamText(child.stderr);
  const output = (): string => stdout.text() + stderr.text();
  const deadline = Date.now() + 45_000;
  while (!output().includes("Prism is listening")) {
    if (child.exitCode !== null)
      throw new Error(`prism exited (${child.exitCode}):\n${output().slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`prism did not start within 45 s:\n${output().slice(-2000)}`);
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
