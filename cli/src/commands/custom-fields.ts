// `erp custom-fields list|get|create|update|delete`: the company's own fields on its resources
// (docs/cli.md, "Custom fields"). A definition's key never changes; its label is what spreadsheets
// show, and `erp import` and `erp export` head its column by it.
import { type Command, InvalidArgumentError } from "commander";
import { clientOf, formatOf } from "../context.ts";
import type { CustomFieldResource, CustomFieldType, CustomFieldUpdate } from "@erp/sdk";
import { printMany, printOne } from "../output.ts";
import { oneOf, parseId } from "../parsers.ts";
import { RESOURCE_NAMES } from "../resources.ts";
import { UsageError } from "../usage-error.ts";
import {
  addWriteOptions,
  noteDryRun,
  type WriteFlags,
  writeOptions,
} from "./resource/write-options.ts";

// Keyed by the SDK's type, so a type the API adds and this list lacks fails to compile.
const EVERY_TYPE: Record<CustomFieldType, true> = {
  text: true,
  integer: true,
  decimal: true,
  money: true,
  date: true,
  boolean: true,
  select: true,
};
const TYPES = Object.keys(EVERY_TYPE) as readonly CustomFieldType[];

interface DefinitionFlags extends WriteFlags {
  label?: string;
  required?: boolean;
  unique?: boolean;
  sensitive?: boolean;
  choices?: string[];
  maxLength?: number;
  description?: string;
}

const choiceList = (value: string): string[] =>
  value
    .split(",")
    .map((choice) => choice.trim())
    .filter(Boolean);

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError("a whole number of at least 1");
  return Number(value);
}

/** The options that describe a definition, shared by create and update. */
function addDefinitionOptions(command: Command, creating: boolean): void {
  const negatable = (name: string, what: string): void => {
    command.option(`--${name}`, what);
    if (!creating) command.option(`--no-${name}`, `no longer ${what}`);
  };
  command
    .option(
      "--label <label>",
      "what spreadsheets and help show (1-100 characters, unique ignoring case)",
    )
    .option(
      "--choices <a,b,…>",
      "select: the values a record may hold, comma-separated",
      choiceList,
    )
    .option(
      "--max-length <n>",
      "text: at most this many characters (default 255, at most 1000)",
      positive,
    )
    .option("--description <text>", "what the field is for");
  negatable("required", "every record must have a value");
  negatable("unique", "no two records may share a value");
  negatable("sensitive", "shown only to tokens that may read sensitive fields");
}

/** The body a create or an update sends, from the flags given (unset flags are left out). */
function definitionBody(flags: DefinitionFlags): CustomFieldUpdate {
  const options = {
    ...(flags.choices ? { choices: flags.choices } : {}),
    ...(flags.maxLength === undefined ? {} : { max_length: flags.maxLength }),
  };
  return {
    ...(flags.label === undefined ? {} : { label: flags.label }),
    ...(flags.required === undefined ? {} : { required: flags.required }),
    ...(flags.unique === undefined ? {} : { unique: flags.unique }),
    ...(flags.sensitive === undefined ? {} : { sensitive: flags.sensitive }),
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(flags.description === undefined ? {} : { description: flags.description }),
  };
}

const EXAMPLES = {
  list: "\nEXAMPLES\n  erp custom-fields list\n  erp custom-fields list --resource workers -o json\n",
  create:
    "\nEXAMPLES\n" +
    '  erp custom-fields create workers union_no --label "Union number" --type text --unique\n' +
    '  erp custom-fields create workers shirt --label "Shirt size" --type select --choices S,M,L,XL\n' +
    '  erp custom-fields create equipment inspected_on --label "Last inspection" --type date --dry-run\n',
  update:
    "\nEXAMPLES\n" +
    '  erp custom-fields update 4 --label "Union no."\n' +
    "  erp custom-fields update 4 --required --dry-run   # 409 names records without a value\n",
  delete: "\nEXAMPLES\n  erp custom-fields delete 4 --dry-run   # how many values it would clear\n",
};

export function registerCustomFields(program: Command): void {
  const group = program
    .command("custom-fields")
    .summary("the company's own fields on its resources: list, get, create, update, delete");

  group
    .command("list")
    .summary("every custom field of the company (or of one resource)")
    .option("--resource <resource>", "only this resource's fields", oneOf(RESOURCE_NAMES))
    .addHelpText("after", EXAMPLES.list)
    .action(async (flags: { resource?: string }, command: Command) => {
      const erp = clientOf(command);
      const list = await erp.customFields.list(
        flags.resource ? { resource: flags.resource as CustomFieldResource } : {},
      );
      await printMany(
        formatOf(command),
        list.map((field) => ({ ...field })),
      );
    });

  group
    .command("get")
    .summary("one custom field's definition")
    .argument("<id>", "the field's id (erp custom-fields list)", parseId)
    .action(async (id: number, _flags: unknown, command: Command) => {
      await printOne(formatOf(command), { ...(await clientOf(command).customFields.get(id)) });
    });

  const create = group
    .command("create")
    .summary("add a field to a resource's records")
    .argument("<resource>", RESOURCE_NAMES.join(", "), oneOf(RESOURCE_NAMES))
    .argument("<key>", "its key in custom_fields (a-z, 0-9, _; never changes)")
    .requiredOption("--type <type>", TYPES.join(", "), oneOf(TYPES));
  addDefinitionOptions(create, true);
  addWriteOptions(create);
  create
    .addHelpText("after", EXAMPLES.create)
    .action(
      async (
        resource: string,
        key: string,
        flags: DefinitionFlags & { type: string },
        command: Command,
      ) => {
        if (flags.label === undefined)
          throw new UsageError("--label is required: what spreadsheets show");
        const body = {
          ...definitionBody(flags),
          resource: resource as CustomFieldResource,
          key,
          type: flags.type as CustomFieldType,
          label: flags.label,
        };
        const created = await clientOf(command).customFields.create(body, writeOptions(flags));
        await printOne(formatOf(command), { ...created });
        noteDryRun(flags.dryRun);
      },
    );

  const update = group
    .command("update")
    .summary("change a field's label, rules, choices or description (its key and type stay)")
    .argument("<id>", "the field's id", parseId)
    .option("--if-match <etag>", "only if the definition still has this ETag (else 412)");
  addDefinitionOptions(update, false);
  addWriteOptions(update);
  update
    .addHelpText("after", EXAMPLES.update)
    .action(async (id: number, flags: DefinitionFlags, command: Command) => {
      const body = definitionBody(flags);
      if (Object.keys(body).length === 0)
        throw new UsageError("give what to change: --label, --required, --choices, …");
      const updated = await clientOf(command).customFields.update(id, body, writeOptions(flags));
      await printOne(formatOf(command), { ...updated });
      noteDryRun(flags.dryRun);
    });

  const remove = group
    .command("delete")
    .summary("delete a field and clear its values on every record")
    .argument("<id>", "the field's id", parseId)
    .option("-y, --yes", "delete without asking; required when stdin is not a terminal");
  addWriteOptions(remove);
  remove
    .addHelpText("after", EXAMPLES.delete)
    .action(async (id: number, flags: WriteFlags & { yes?: boolean }, command: Command) => {
      if (!flags.yes && !flags.dryRun)
        throw new UsageError(
          `not deleting custom field ${id}: its values are cleared on every record; pass --yes ` +
            "to delete (or --dry-run to see how many)",
        );
      const deleted = await clientOf(command).customFields.delete(id, writeOptions(flags));
      await printOne(formatOf(command), { ...deleted });
      noteDryRun(flags.dryRun);
    });
}
