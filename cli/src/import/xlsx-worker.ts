// The worker thread that reads a workbook for the import (xlsx-worker-client.ts): it posts the
// header, then the rows in chunks, never more than a few chunks ahead of the rows the import has taken.
import { parentPort, workerData } from "node:worker_threads";
import { UsageError } from "../usage-error.ts";
import type { Row } from "./source.ts";
import { readWorkbook } from "./workbook-reader.ts";
import { CHUNKS_AHEAD, type WorkerData, type WorkerMessage } from "./xlsx-worker-client.ts";

const CHUNK_ROWS = 500;

const port = parentPort!;
const { fd, size, ...options } = workerData as WorkerData;

let credits = CHUNKS_AHEAD;
let wake: (() => void) | undefined;
port.on("message", () => {
  credits++;
  wake?.();
});

const post = (message: WorkerMessage): void => port.postMessage(message);

async function send(rows: Row[]): Promise<void> {
  while (credits === 0)
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  credits--;
  post({ rows });
}

try {
  const source = await readWorkbook({ fd, size }, options);
  post({ header: source.header!, overhead: source.overhead });
  let chunk: Row[] = [];
  for await (const row of source.rows) {
    chunk.push(row);
    if (chunk.length >= CHUNK_ROWS) {
      await send(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await send(chunk);
  post({ end: true });
} catch (error) {
  post({ error: (error as Error).message, usage: error instanceof UsageError });
}
