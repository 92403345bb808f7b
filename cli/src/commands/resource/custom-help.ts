// A resource's --help lists the company's own fields when the CLI is connected: commander writes help
// synchronously, so the definitions are read before the command line is parsed, only when it asks
// for a resource's help, and quietly left out when there is no connection or the API does not answer
// within a few seconds (help must never fail for it).
import { Command } from "commander";
import { clientFor } from "../../context.ts";
import {
  type CustomFieldDefinition,
  customFieldsOf,
  customMember,
  hintOf,
} from "../../custom-fields.ts";
import type { Factory } from "../../factory.ts";
import { COLLECTION_SPECS } from "../../resources.ts";

/** How long help waits for the definitions. */
const WAIT_MS = 3000;

/** The definitions read for the help asked for, by resource. */
const known = new Map<string, readonly CustomFieldDefinition[]>();

/** The CUSTOM FIELDS section of a resource's help, or nothing when none were read. */
export function customFieldsHelp(resource: string): string {
  const fields = known.get(resource) ?? [];
  if (fields.length === 0) return "";
  const names = fields.map((field) => customMember(field.key));
  const width = Math.max(...names.map((name) => name.length));
  const lines = fields.map((field, index) => `  ${names[index]!.padEnd(width)}  ${hintOf(field)}`);
  return (
    "\nCUSTOM FIELDS (this company's; custom_fields.<key>=value, or a column headed by the label)\n" +
    `${lines.join("\n")}\n`
  );
}

/** Reads the company's fields of the resource whose help `argv` asks for, if it asks for one. */
export async function loadCustomFieldsHelp(f: Factory, argv: readonly string[]): Promise<void> {
  const args = argv.slice(2);
  if (!args.some((arg) => arg === "--help" || arg === "-h")) return;
  const resource = args.find((arg) => COLLECTION_SPECS.some((spec) => spec.name === arg));
  const spec = COLLECTION_SPECS.find((candidate) => candidate.name === resource);
  if (spec?.kind !== "records") return;
  // Only the helps that show them: the resource's own, its create's and its update's.
  const sub = args[args.indexOf(spec.name) + 1];
  if (sub !== undefined && !sub.startsWith("-") && sub !== "create" && sub !== "update") return;
  // The global flags alone (--base-url, --token, --profile), as the real parse will read them.
  const globals = new Command()
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .exitOverride()
    .option("--base-url <url>")
    .option("--token <token>")
    .option("--profile <name>")
    .parse(args, { from: "user" })
    .opts();
  try {
    const erp = clientFor(f, globals, { maxRetries: 0 });
    known.set(
      spec.name,
      await customFieldsOf(erp, spec.name, { signal: AbortSignal.timeout(WAIT_MS) }),
    );
  } catch {
    // Not connected, or the API refused: the help shows the API's own fields only.
  }
}
