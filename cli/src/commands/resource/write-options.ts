// Options every write subcommand shares: where the body comes from, dry-run and the idempotency key.
import type { Command } from "commander";

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

/** Tells a person that a dry run changed nothing; scripts read `dry_run` in the output. */
export function noteDryRun(dryRun: boolean | undefined): void {
  if (dryRun) process.stderr.write("dry run: nothing was written\n");
}
