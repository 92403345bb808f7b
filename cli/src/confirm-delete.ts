// The question every `delete` asks: like gh, a script never deletes by accident. On a terminal it
// asks; off one only --yes confirms (exit 2 otherwise). --dry-run deletes nothing, so never asks.
import { UsageError } from "./usage-error.ts";

/**
 * Whether to go ahead and delete `what` ("projects 7", "attachment 12"): true with --yes or
 * --dry-run, or when the person at the terminal types y. A refusal on the terminal says "not
 * deleted" and sets exit code 1; without a terminal it throws a UsageError naming --yes.
 */
export function confirmDelete(what: string, flags: { yes?: boolean; dryRun?: boolean }): boolean {
  if (flags.yes || flags.dryRun) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UsageError(
      `not deleting ${what}: there is no terminal to confirm on; pass --yes to delete (or ` +
        `--dry-run to preview)`,
    );
  }
  const answer = prompt(`Delete ${what}? Type y to confirm:`);
  if (answer?.trim().toLowerCase() === "y") return true;
  process.stderr.write("not deleted\n");
  process.exitCode = 1;
  return false;
}
