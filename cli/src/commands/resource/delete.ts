// `erp <resource> delete <id>`: a soft delete; --dry-run shows what would go and what would stay.
// It asks on a terminal; without one it refuses (exit 2) unless --yes says so.
import { confirmDelete } from "../../confirm-delete.ts";
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { parseId } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addWriteOptions, noteDryRun, type WriteFlags, writeOptions } from "./write-options.ts";

export const remove: ResourceCommand = {
  name: "delete",
  summary: (spec) => `delete one of the ${spec.name} (kept for history, gone from the API)`,
  configure(command) {
    command.argument("<id>", "record id", parseId);
    addWriteOptions(command);
    command.option("--if-match <etag>", "only if the record still has this ETag (else 412)");
    command.option(
      "-y, --yes",
      "delete without asking; required when stdin is not a terminal (scripts)",
    );
  },
  async run(spec, command, [id], options) {
    const format = formatOf(command);
    const flags = options as WriteFlags & { yes?: boolean };
    if (!confirmDelete(`${spec.name} ${String(id)}`, flags)) return;
    const result = await resourceClient(clientOf(command), spec.name).delete(
      id as number,
      writeOptions(flags),
    );
    await printOne(format, { ...result });
    noteDryRun(flags.dryRun);
  },
};
