// `erp <resource> create`: a new record from --data, --file or key=value arguments.
import { clientOf } from "../../context.ts";
import { customFieldsOf } from "../../custom-fields.ts";
import { resourceClient } from "../../resources.ts";
import { createHelp } from "./help.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addBodyOptions, addWriteOptions, sendWrite } from "./write-options.ts";

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
  run: (spec, command, [fields], options) =>
    sendWrite(
      command,
      options,
      fields as string[],
      () => customFieldsOf(clientOf(command), spec.name),
      (body, write) => resourceClient(clientOf(command), spec.name).create(body, write),
    ),
};
