// The worker thread that parses a workbook file for the import (xlsx-source.ts): it posts the header,
// then the rows in chunks, never more than a few chunks ahead of the rows the import has taken.
import { createReadStream } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { UsageError } from "../usage-error.ts";
import type { Row } from "./source.ts";
import {
  CHUNKS_AHEAD,
  readWorkbook,
  typedCells,
  type WorkbookOptions,
  type WorkerMessage,
} from "./xlsx-source.ts";

const CHUNK_ROWS = 500;

const port = parentPort!;
const { file, ...options } = workerData as WorkbookOptions & { file: string };

let credits = CHUNKS_AHEAD;
let wake: (() => void) | undefined;
port.on("message", () => {
  credits++;
  wake?.();
});

const post = (message: WorkerMessage): void => port.postMessage(message);

async function send(rows: WorkerMessage & { rows: unknown }): Promise<void> {
  while (credits === 0)
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  credits--;
  post(rows);
}

try {
  const source = await readWorkbook(createReadStream(file), options);
  post({ header: source.header!, overhead: source.overhead });
  let chunk: (Row & { typed?: ReturnType<typeof typedCells.get> })[] = [];
  for await (const row of source.rows) {
    chunk.push(row.cells ? { ...row, typed: typedCells.get(row.cells) } : row);
    if (chunk.length >= CHUNK_ROWS) {
      await send({ rows: chunk });
      chunk = [];
    }
  }
  if (chunk.length > 0) await send({ rows: chunk });
  post({ end: true });
} catch (error) {
  post({ error: (error as Error).message, usage: error instanceof UsageError });
}
