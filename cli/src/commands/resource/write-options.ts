// Options every write subcommand shares: where the body comes from, dry-run and the idempotency key;
// and how create and update send the body those make and print the answer.
import type { Command } from "commander";
import { readBody } from "../../body.ts";
import { formatOf } from "../../context.ts";
import { type CustomFieldDefinition, typedCustomValues } from "../../custom-fields.ts";
import { printOne } from "../../output.ts";

export function addBodyOptions(command: Command): void {
  command
    .option("--data <json>", "the fields as a JSON object")
    .option("--file <file>", "read the JSON object from a file (- for stdin)");
}

export function addWriteOptions(command: Command): void {
  command
    .option("--dry-run", "validate and show what would happen; nothing is written")
    .option(
      "--idempotency-key <key>",
      "repeat-safe key: the same key and body never write twice (default: a new one per call)",
    );
}

export interface WriteFlags {
  dryRun?: boolean;
  idempotencyKey?: string;
  ifMatch?: string;
}

/** SDK write options from the flags; unset flags stay unset so the SDK's defaults apply. */
export function writeOptions(flags: WriteFlags): {
  dryRun: boolean;
  idempotencyKey?: string;
  ifMatch?: string;
} {
  return {
    dryRun: flags.dryRun === true,
    ...(flags.idempotencyKey !== undefined ? { idempotencyKey: flags.idempotencyKey } : {}),
    ...(flags.ifMatch !== undefined ? { ifMatch: flags.ifMatch } : {}),
  };
}

type SdkWriteOptions = ReturnType<typeof writeOptions>;

/**
 * Sends the body the arguments and flags make with `write` (custom values read by their fields'
 * types, which `definitions` gives when asked), prints the answer, and notes a dry run.
 */
export async function sendWrite(
  command: Command,
  options: Record<string, unknown>,
  fields: string[],
  definitions: () => Promise<readonly CustomFieldDefinition[]>,
  write: (body: Record<string, unknown>, options: SdkWriteOptions) => Promise<object>,
): Promise<void> {
  const format = formatOf(command);
  const body = await typedCustomValues(readBody(options, fields), definitions);
  const flags = options as WriteFlags;
  await printOne(format, { ...(await write(body, writeOptions(flags))) });
  noteDryRun(flags.dryRun);
}

/** Tells a person that a dry run changed nothing; scripts read `dry_run` in the output. */
export function noteDryRun(dryRun: boolean | undefined): void {
  if (dryRun) process.stderr.write("dry run: nothing was written\n");
}
