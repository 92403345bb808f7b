// `erp <resource> create`: a new record from --data, --file or key=value arguments.
import { readBody } from "../../body.ts";
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { resourceClient } from "../../resources.ts";
import { createHelp } from "./help.ts";
import type { ResourceCommand } from "./resource-command.ts";
import {
  addBodyOptions,
  addWriteOptions,
  noteDryRun,
  type WriteFlags,
  writeOptions,
} from "./write-options.ts";

export const create: ResourceCommand = {
  name: "create",
  summary: (spec) =>
    `create one of the ${spec.name} (${spec.title} is required): key=value …, --data or --file`,
  configure(command) {
    command.argument("[fields...]", "key=value pairs (key:=JSON for a raw JSON value)");
    addBodyOptions(command);
    addWriteOptions(command);
  },
  help: createHelp,
  async run(spec, command, [fields], options) {
    const format = formatOf(command);
    const body = readBody(options, fields as string[]);
    const flags = options as WriteFlags;
    const result = await resourceClient(clientOf(command), spec.name).create(
      body,
      writeOptions(flags),
    );
    await printOne(format, { ...result });
    noteDryRun(flags.dryRun);
  },
};
