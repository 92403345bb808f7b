// `erp <lookup> rename <id|name> <new-name>`: renames a trade or equipment category, named by its
// id or its current name (matched as the API matches names: ignoring case and surrounding spaces).
// The records that name it show the new name at once: they hold its id.
import { clientOf, formatOf } from "../../context.ts";
import { printOne } from "../../output.ts";
import { type AnyResourceClient, resourceClient, type ResourceSpec } from "../../resources.ts";
import { UsageError } from "../../usage-error.ts";
import type { ResourceCommand } from "./resource-command.ts";
import { addWriteOptions, noteDryRun, type WriteFlags, writeOptions } from "./write-options.ts";

/** The id an argument names: itself when it is one, else the live record with that name. */
async function idOf(client: AnyResourceClient, spec: ResourceSpec, named: string): Promise<number> {
  if (/^[1-9][0-9]*$/.test(named)) return Number(named);
  const page = await client.listPage({ [spec.title]: named, limit: 1, fields: ["id"] });
  const found = page.data[0]?.id;
  if (typeof found === "number") return found;
  throw new UsageError(
    `no ${spec.singular} is named ${JSON.stringify(named)}; \`erp ${spec.name} list --q …\` ` +
      "finds names that contain some text",
  );
}

export const rename: ResourceCommand = {
  name: "rename",
  summary: (spec) => `give one of the ${spec.name} a new ${spec.title} (its id stays)`,
  configure(command, spec) {
    command
      .argument("<id|name>", `the ${spec.singular}'s id, or its current ${spec.title}`)
      .argument(`<new-${spec.title}>`, `its new ${spec.title}`);
    addWriteOptions(command);
    command.option("--if-match <etag>", "only if the record still has this ETag (else 412)");
  },
  help: (spec) =>
    `\nEXAMPLES\n  erp ${spec.name} rename 7 "Electrical work"\n` +
    `  erp ${spec.name} rename "electrical" "Electrical work" --dry-run\n`,
  async run(spec, command, [named, name], options) {
    const client = resourceClient(clientOf(command), spec.name);
    const id = await idOf(client, spec, named as string);
    const flags = options as WriteFlags;
    const result = await client.update(id, { [spec.title]: name }, writeOptions(flags));
    await printOne(formatOf(command), { ...result });
    noteDryRun(flags.dryRun);
  },
};
