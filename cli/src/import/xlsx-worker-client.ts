// Runs the workbook reader (workbook-reader.ts) on a worker thread (xlsx-worker.ts) and hands its
// rows to the import as they come: the header first, then rows in chunks, never more than a few
// chunks ahead of the rows the import has taken, so a fast reader does not fill memory.
import { closeSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { UsageError } from "../usage-error.ts";
import type { ImportSource, Row } from "./source.ts";
import type { WorkbookFile, WorkbookOptions } from "./workbook-reader.ts";

/** What the worker posts: the header first, then rows (with their typed cells) in chunks, then the end. */
export type WorkerMessage =
  | { header: string[]; overhead: number }
  | { rows: Row[] }
  | { end: true }
  | { error: string; usage: boolean };

/** What the worker is started with. */
export type WorkerData = WorkbookFile & WorkbookOptions;

/** Chunks the worker may post ahead of the rows taken. */
export const CHUNKS_AHEAD = 4;

/**
 * The worker's module: beside this one when run from the checkout; in the single-file binary
 * (`bun run --cwd cli build` bundles it as an entry of its own), where the bundler put it.
 */
function workerEntry(): URL {
  const beside = new URL("./xlsx-worker.ts", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL("./import/xlsx-worker.js", import.meta.url);
}

/** The workbook's rows, read on a worker thread from the open file (closed once they are read or left). */
export async function workbookOnWorker(
  file: WorkbookFile,
  options: WorkbookOptions,
): Promise<ImportSource> {
  const workerData: WorkerData = {
    ...file,
    name: options.name,
    sheet: options.sheet,
    typed: options.typed,
  };
  const worker = new Worker(workerEntry(), { workerData });
  let closed = false;
  const stop = (): void => {
    void worker.terminate().finally(() => {
      if (!closed) closeSync(file.fd);
      closed = true;
    });
  };
  const queue: WorkerMessage[] = [];
  let waiting: (() => void) | undefined;
  const take = (message: WorkerMessage): void => {
    queue.push(message);
    waiting?.();
  };
  worker.on("message", take);
  worker.on("error", (error: Error) => take({ error: error.message, usage: false }));
  // After its last message a worker ends; ending without one (killed, out of memory) must not leave
  // the import waiting.
  worker.on("exit", (code: number) =>
    take({ error: `the workbook reader stopped (exit code ${code})`, usage: false }),
  );
  // The worker keeps the CLI alive only while the import waits for it: an import that stops early
  // (a header to fix, Ctrl-C) ends without waiting for the rest of the file to be read.
  worker.unref();
  const next = async (): Promise<WorkerMessage> => {
    if (queue.length === 0) {
      worker.ref();
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
      waiting = undefined;
      worker.unref();
    }
    const message = queue.shift()!;
    if ("error" in message) {
      stop();
      throw message.usage ? new UsageError(message.error) : new Error(message.error);
    }
    return message;
  };
  const first = await next();
  if (!("header" in first)) throw new Error("the workbook reader sent rows before the header");
  async function* rows(): AsyncGenerator<Row> {
    try {
      for (;;) {
        const message = await next();
        if ("end" in message) return;
        if (!("rows" in message)) continue;
        worker.postMessage("more");
        yield* message.rows;
      }
    } finally {
      stop();
    }
  }
  return {
    format: "xlsx",
    header: first.header,
    totalSize: file.size,
    overhead: first.overhead,
    bom: false,
    blankLines: () => 0,
    rows: rows(),
  };
}
