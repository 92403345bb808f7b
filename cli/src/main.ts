#!/usr/bin/env bun
// `erp`: the Construction ERP command line. Data goes to stdout, progress and errors to stderr.
import { Command, CommanderError, Option } from "commander";
import { registerExport } from "./commands/export.ts";
import { registerImport } from "./commands/import.ts";
import { registerLogin } from "./commands/login.ts";
import { registerResources } from "./commands/resources.ts";
import { registerUsage } from "./commands/usage.ts";
import { EXIT } from "./exit-codes.ts";
import { OUTPUT_FORMATS } from "./output.ts";
import { reportError } from "./report-error.ts";

const program = new Command("erp")
  .description("Command line for the Construction ERP API")
  .addOption(new Option("--base-url <url>", "API base URL (else ERP_BASE_URL, else `erp login`'s file)"))
  .addOption(new Option("--token <token>", "API token (else ERP_TOKEN, else `erp login`'s file)"))
  .addOption(new Option("-o, --output <format>", "json, ndjson, table or csv (default: table on a terminal, json otherwise)").choices(OUTPUT_FORMATS))
  .showSuggestionAfterError()
  .showHelpAfterError("(run with --help for usage)")
  // Every usage mistake ends in exit 2, which commander would otherwise report as 1.
  .exitOverride();

registerResources(program);
registerImport(program);
registerExport(program);
registerUsage(program);
registerLogin(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = error instanceof CommanderError ? (error.exitCode === 0 ? EXIT.OK : EXIT.USAGE) : reportError(error);
}
