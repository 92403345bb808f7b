// `erp <lookup> create <name>`: a new trade or equipment category by its name, other fields as
// key=value. The API stores the name trimmed and refuses one a live record holds in any case (409).
import { parseAssignments } from "../../body.ts";
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { resourceClient } from "../../resources.ts";
import { UsageError } from "../../usage-error.ts";
import { fieldsHelp } from "./help.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addWriteOptions, noteDryRun, type WriteFlags, writeOptions } from "./write-options.ts";

export const createNamed: ResourceCommand = {
  name: "create",
  summary: (spec) =>
    `add one of the ${spec.name} by its ${spec.title} (unique ignoring case and surrounding spaces)`,
  configure(command, spec) {
    command
      .argument(`<${spec.title}>`, `the new ${spec.singular}'s ${spec.title}`)
      .argument("[fields...]", "other fields as key=value (external_id=…)");
    addWriteOptions(command);
  },
  help: (spec) =>
    `${fieldsHelp(spec.fields.create)}\nEXAMPLES\n` +
    `  erp ${spec.name} create "Scaffolding"\n` +
    `  erp ${spec.name} create "Scaffolding" external_id=SC-1 --dry-run\n`,
  async run(spec, command, [name, fields], options) {
    const extra = parseAssignments(fields as string[]);
    if (Object.hasOwn(extra, spec.title))
      throw new UsageError(
        `the ${spec.title} is the first argument; do not give ${spec.title}= too`,
      );
    const flags = options as WriteFlags;
    const result = await resourceClient(clientOf(command), spec.name).create(
      { [spec.title]: name, ...extra },
      writeOptions(flags),
    );
    await printOne(formatOf(command), { ...result });
    noteDryRun(flags.dryRun);
  },
};
