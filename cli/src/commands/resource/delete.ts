// `erp <resource> delete <id>`: a soft delete; --dry-run shows what would go and what would stay.
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
    command.option("-y, --yes", "do not ask for confirmation (it is asked only on a terminal)");
  },
  async run(spec, command, [id], options) {
    const format = formatOf(command);
    const flags = options as WriteFlags & { yes?: boolean };
    if (!flags.yes && !flags.dryRun && process.stdin.isTTY && process.stderr.isTTY) {
      const answer = prompt(`Delete ${spec.name} ${String(id)}? Type y to confirm:`);
      if (answer?.trim().toLowerCase() !== "y") {
        process.stderr.write("not deleted\n");
        process.exitCode = 1;
        return;
      }
    }
    const result = await resourceClient(clientOf(command), spec.name).delete(id as number, writeOptions(flags));
    await printOne(format, { ...result });
    noteDryRun(flags.dryRun);
  },
};
