// `erp <resource> update <id>`: changes only the fields given.
import { clientOf } from "../../context.ts";
import { parseId } from "../../parsers.ts";
import { customFieldsOf } from "../../custom-fields.ts";
import { resourceClient } from "../../resources.ts";
import { updateHelp } from "./help.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addBodyOptions, addWriteOptions, sendWrite } from "./write-options.ts";

export const update: ResourceCommand = {
  name: "update",
  summary: (spec) => `change fields of one of the ${spec.name} (key=value …, key= clears a field)`,
  configure(command) {
    command
      .argument("<id>", "record id", parseId)
      .argument("[fields...]", "key=value pairs (key= clears, key:=JSON for a raw JSON value)");
    addBodyOptions(command);
    addWriteOptions(command);
    command.option("--if-match <etag>", "only if the record still has this ETag (else 412)");
  },
  help: updateHelp,
  run: (spec, command, [id, fields], options) =>
    sendWrite(
      command,
      options,
      fields as string[],
      () => customFieldsOf(clientOf(command), spec.name),
      (body, write) =>
        resourceClient(clientOf(command), spec.name).update(id as number, body, write),
    ),
};
