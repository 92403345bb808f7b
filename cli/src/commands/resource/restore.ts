// `erp <resource> restore <id>`: brings a deleted record back as it was; --dry-run shows what would
// come back (the record and what was deleted with it) without writing.
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { parseId } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addWriteOptions, noteDryRun, type WriteFlags, writeOptions } from "./write-options.ts";

export const restore: ResourceCommand = {
  name: "restore",
  summary: (spec) => `bring back one of the deleted ${spec.name}, as it was`,
  configure(command) {
    command.argument("<id>", "id of the deleted record", parseId);
    addWriteOptions(command);
  },
  async run(spec, command, [id], options) {
    const flags = options as WriteFlags;
    const result = await resourceClient(clientOf(command), spec.name).restore(
      id as number,
      writeOptions(flags),
    );
    await printOne(formatOf(command), { ...result });
    noteDryRun(flags.dryRun);
  },
};
