// Registers `erp <resource> list|get|create|update|delete|restore|aggregate` for each resource
// and `erp <lookup> list|get|create|rename|update|delete|restore|aggregate` for each lookup (a
// trade: created by its name), from the collections the SDK generates from the API's document.
import type { Command } from "commander";
import { COLLECTION_SPECS } from "../resources.ts";
import { aggregate } from "./resource/aggregate.ts";
import { create } from "./resource/create.ts";
import { createNamed } from "./resource/create-named.ts";
import { customFieldsHelp } from "./resource/custom-help.ts";
import { remove } from "./resource/delete.ts";
import { get } from "./resource/get.ts";
import { list } from "./resource/list.ts";
import type { ResourceCommand } from "./resource/resource-command.ts";
import { rename } from "./resource/rename.ts";
import { restore } from "./resource/restore.ts";
import { update } from "./resource/update.ts";

const SUBCOMMANDS: readonly ResourceCommand[] = [
  list,
  get,
  create,
  update,
  remove,
  restore,
  aggregate,
];
const LOOKUP_SUBCOMMANDS: readonly ResourceCommand[] = [
  list,
  get,
  createNamed,
  rename,
  update,
  remove,
  restore,
  aggregate,
];

export function registerResources(program: Command): void {
  for (const spec of COLLECTION_SPECS) {
    const subcommands = spec.kind === "records" ? SUBCOMMANDS : LOOKUP_SUBCOMMANDS;
    const group = program
      .command(spec.name)
      .summary(`${spec.name}: ${subcommands.map((sub) => sub.name).join(", ")}`)
      .addHelpText("after", () => customFieldsHelp(spec.name));
    for (const sub of subcommands) {
      const command = group
        .command(sub.name)
        .summary(sub.summary(spec))
        .description(sub.summary(spec));
      sub.configure(command, spec);
      if (sub.help) command.addHelpText("after", sub.help(spec));
      if (sub.name === "create" || sub.name === "update")
        command.addHelpText("after", () => customFieldsHelp(spec.name));
      command.action((...params: unknown[]) => {
        // commander passes the arguments, then the options, then the command itself.
        const args = params.slice(0, -2);
        return sub.run(spec, command, args, params.at(-2) as Record<string, unknown>);
      });
    }
  }
}
