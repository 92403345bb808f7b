// `erp attach <resource> <id> <file…>` and `erp attachments list|download|delete`: files on
// records (docs/attachments.md). A file over a few MB shows a progress bar on a terminal's stderr.
import { basename } from "node:path";
import type { Command } from "commander";
import { COLLECTIONS, type ErpClient, type RecordAttachments } from "@erp/sdk";
import { confirmDelete } from "../confirm-delete.ts";
import { clientOf, formatOf } from "../context.ts";
import { printMany, printOne } from "../output.ts";
import { parseId } from "../parsers.ts";
import { UsageError } from "../usage-error.ts";

/** Files at least this large show a progress bar (on a terminal). */
const PROGRESS_FROM = 4 * 1024 * 1024;

/** The resources whose records take attachments, by their command name. */
const RECORD_COMMANDS = Object.entries(COLLECTIONS)
  .filter(([, spec]) => spec.kind === "records")
  .map(([property, spec]) => ({ property, command: spec.command }));

function recordFiles(erp: ErpClient, resource: string, id: number): RecordAttachments {
  const found = RECORD_COMMANDS.find((one) => one.command === resource);
  if (!found)
    throw new UsageError(
      `"${resource}" takes no attachments; one of: ${RECORD_COMMANDS.map((one) => one.command).join(", ")}`,
    );
  return (erp as unknown as Record<string, { attachments(id: number): RecordAttachments }>)[
    found.property
  ]!.attachments(id);
}

/** The file's bytes as a stream that draws a progress bar on stderr as they are read. */
function withProgress(file: Blob, name: string): ReadableStream<Uint8Array> {
  let sent = 0;
  const started = Date.now();
  const draw = (done: boolean) => {
    const share = file.size === 0 ? 1 : sent / file.size;
    const bar = "#".repeat(Math.round(share * 30)).padEnd(30, ".");
    const rate = sent / Math.max(0.001, (Date.now() - started) / 1000) / 1024 / 1024;
    process.stderr.write(
      `\r${name} [${bar}] ${Math.round(share * 100)}% ${rate.toFixed(1)} MiB/s${done ? "\n" : ""}`,
    );
  };
  return file.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        draw(false);
        controller.enqueue(chunk);
      },
      flush: () => draw(true),
    }),
  );
}

function registerAttach(program: Command): void {
  program
    .command("attach")
    .argument("<resource>", "the record's resource, e.g. subcontractors")
    .argument("<id>", "the record's id", parseId)
    .argument("<file...>", "the files to attach (each at most 100 MiB)")
    .summary("attach files to a record")
    .option("--content-type <type>", "the files' media type (default: from each file's name)")
    .option("--dry-run", "check the record, quota and size; store nothing")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp attach subcontractors 42 'COI 2027.pdf'\n  erp attach equipment 7 before.jpg after.jpg\n",
    )
    .action(
      async (
        resource: string,
        id: number,
        files: string[],
        options: { contentType?: string; dryRun?: boolean },
        command: Command,
      ) => {
        const target = recordFiles(clientOf(command), resource, id);
        const made: Record<string, unknown>[] = [];
        for (const path of files) {
          const file = Bun.file(path);
          if (!(await file.exists())) throw new UsageError(`no file ${path}`);
          const big = file.size >= PROGRESS_FROM && process.stderr.isTTY === true;
          made.push({
            ...(await target.upload(big ? withProgress(file, basename(path)) : file, {
              filename: basename(path),
              contentType: options.contentType ?? (file.type || undefined),
              dryRun: options.dryRun === true,
            })),
          });
        }
        await printMany(formatOf(command), made);
      },
    );
}

export function registerAttachments(program: Command): void {
  registerAttach(program);
  const attachments = program
    .command("attachments")
    .summary("files on records: list, download, delete (erp attach uploads)");

  attachments
    .command("list")
    .argument("<resource>", "the record's resource, e.g. subcontractors")
    .argument("<id>", "the record's id", parseId)
    .summary("a record's attachments (name, type, size, sha256)")
    .action(async (resource: string, id: number, _options: unknown, command: Command) => {
      const all: Record<string, unknown>[] = [];
      for await (const one of recordFiles(clientOf(command), resource, id).list())
        all.push({ ...one });
      await printMany(formatOf(command), all);
    });

  attachments
    .command("download")
    .argument("<id>", "the attachment's id (erp attachments list)", parseId)
    // -o is every command's --output (the format): the file is -O.
    .option("-O, --out <file>", "write it here (default: its own name; - for stdout)")
    .summary("download an attachment, streamed")
    .action(async (id: number, options: { out?: string }, command: Command) => {
      const erp = clientOf(command);
      const meta = await erp.attachments.get(id);
      const download = await erp.attachments.download(id);
      const target = options.out ?? meta.filename;
      if (target === "-") {
        const reader = download.body.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read())
          process.stdout.write(next.value);
        return;
      }
      await Bun.write(target, new Response(download.body));
      process.stderr.write(`${target}: ${meta.size} bytes\n`);
    });

  attachments
    .command("delete")
    .argument("<id>", "the attachment's id", parseId)
    .option("--dry-run", "validate only")
    .option("-y, --yes", "delete without asking; required when stdin is not a terminal (scripts)")
    .summary("delete an attachment (its bytes too); asks on a terminal unless --yes")
    .action(async (id: number, options: { dryRun?: boolean; yes?: boolean }, command: Command) => {
      if (!confirmDelete(`attachment ${id}`, options)) return;
      const deleted = await clientOf(command).attachments.delete(id, {
        dryRun: options.dryRun === true,
      });
      await printOne(formatOf(command), { ...deleted });
    });
}
