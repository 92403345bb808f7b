// `erp <resource> get <id>`: one record.
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { parseFields, parseId } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import type { ResourceCommand } from "./resource-command.ts";

export const get: ResourceCommand = {
  name: "get",
  summary: (spec) => `show one of the ${spec.name}`,
  configure(command) {
    command.argument("<id>", "record id", parseId);
    command.option("--fields <a,b>", "only these fields (plus id)", parseFields);
    command.option(
      "-i, --include",
      "also print the response's status and headers on stderr (the ETag for --if-match)",
    );
  },
  async run(spec, command, [id], options) {
    const format = formatOf(command);
    const { data: record, response } = await resourceClient(clientOf(command), spec.name)
      .get(id as number, { fields: options.fields as string[] | undefined })
      .withResponse();
    if (options.include) {
      const lines = [
        `HTTP ${response.status}`,
        ...[...response.headers].map(([name, value]) => `${name}: ${value}`),
      ];
      process.stderr.write(`${lines.join("\n")}\n\n`);
    }
    await printOne(format, record);
  },
};
