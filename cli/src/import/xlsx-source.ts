// Opens an Excel workbook (.xlsx) for the import: a file as it is, stdin first copied to a file
// nobody can see (a zip is read from its end); its rows are then read on a worker thread
// (xlsx-worker-client.ts, workbook-reader.ts).
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ImportSource } from "./source.ts";
import type { WorkbookFile, WorkbookOptions } from "./workbook-reader.ts";
import { workbookOnWorker } from "./xlsx-worker-client.ts";

/**
 * The workbook's rows, parsed on a worker thread (xlsx-worker.ts) beside the thread that sends the
 * batches: parsing a workbook costs several times what a CSV does, and on the import's own thread
 * it would hold up the next batch.
 */
export async function openWorkbook(
  bytes: AsyncGenerator<Uint8Array>,
  options: WorkbookOptions & { file: string | undefined; totalSize: number | undefined },
): Promise<ImportSource> {
  let opened: WorkbookFile;
  if (options.file === undefined) opened = await spool(bytes);
  else {
    await bytes.return(undefined);
    opened = { fd: openSync(options.file, "r"), size: options.totalSize ?? 0 };
  }
  return workbookOnWorker(opened, options);
}

/**
 * Stdin copied to a file that is removed as soon as it is opened: a zip is read from its end, and
 * the copy is gone whatever ends the CLI (it holds the bytes as given, never what they unpack to).
 */
async function spool(bytes: AsyncIterable<Uint8Array>): Promise<WorkbookFile> {
  const dir = mkdtempSync(path.join(tmpdir(), "erp-stdin-"));
  const file = path.join(dir, "workbook.xlsx");
  const fd = openSync(file, "w+", 0o600);
  rmSync(dir, { recursive: true, force: true });
  let size = 0;
  try {
    for await (const chunk of bytes) {
      for (let at = 0; at < chunk.length; )
        at += writeSync(fd, chunk, at, chunk.length - at, size + at);
      size += chunk.length;
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { fd, size };
}
