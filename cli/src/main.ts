#!/usr/bin/env bun
// `erp`: the Construction ERP command line. Data goes to stdout, progress and errors to stderr.
import { Command, CommanderError, Option } from "commander";
import { registerAuth } from "./commands/auth.ts";
import { registerCompletion } from "./commands/completion.ts";
import { registerEvents } from "./commands/events.ts";
import { registerExport } from "./commands/export.ts";
import { registerImport } from "./commands/import.ts";
import { registerLogin } from "./commands/login.ts";
import { registerRentals } from "./commands/rentals.ts";
import { registerResources } from "./commands/resources.ts";
import { registerTokens } from "./commands/tokens.ts";
import { registerUsage } from "./commands/usage.ts";
import { registerWebhooks } from "./commands/webhooks.ts";
import { EXIT } from "./exit-codes.ts";
import { OUTPUT_FORMATS } from "./output.ts";
import { reportError } from "./report-error.ts";
import packageJson from "../package.json" with { type: "json" };

const { version } = packageJson as { version: string };

const program = new Command("erp")
  .description("Command line for the Construction ERP API")
  .version(version, "-V, --version", "print the version")
  .addOption(
    new Option("--base-url <url>", "API base URL (else ERP_BASE_URL, else `erp login`'s file)"),
  )
  .addOption(new Option("--token <token>", "API token (else ERP_TOKEN, else `erp login`'s file)"))
  .addOption(
    new Option(
      "-o, --output <format>",
      "json, ndjson, table or csv (default: table on a terminal, json otherwise)",
    ).choices(OUTPUT_FORMATS),
  )
  .addOption(
    new Option("--profile <name>", "use this saved login (else ERP_PROFILE, else default)"),
  )
  .addOption(new Option("-v, --verbose", "print each request and response line on stderr"))
  .addHelpText(
    "after",
    `
EXAMPLES
  erp login                                  save the API URL and token
  erp projects list --status active --fields name,status
  erp workers create name="Ann Lee" email=ann@example.com
  erp workers get 7 --include                shows the ETag for --if-match
  erp import workers staff.csv --rejects fix-me.csv
  erp events --follow                        the change feed, live
  eval "$(erp completion bash)"              tab completion

Exit codes: 0 ok, 1 API or network error, 2 usage error, 3 import finished with rejected rows.
NO_COLOR turns colour off; data goes to stdout, progress and errors to stderr.`,
  )
  .showSuggestionAfterError()
  .showHelpAfterError("(run with --help for usage)")
  // Every usage mistake ends in exit 2, which commander would otherwise report as 1.
  .exitOverride();

registerResources(program);
registerImport(program);
registerExport(program);
registerUsage(program);
registerLogin(program);
registerAuth(program);
registerTokens(program);
registerRentals(program);
registerWebhooks(program);
registerEvents(program);
registerCompletion(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode =
    error instanceof CommanderError
      ? error.exitCode === 0
        ? EXIT.OK
        : EXIT.USAGE
      : reportError(error);
}
