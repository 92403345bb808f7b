// The `erp` program: its global flags, help and commands, run on a factory (factory.ts): the
// process's own from main.ts, or a test's captured streams and fake API, so a command's unit tests
// parse the same flags and end with the same exit codes as the CLI does.
import { Command, CommanderError, Option } from "commander";
import { registerAuth } from "./commands/auth.ts";
import { registerCompletion } from "./commands/completion.ts";
import { registerCustomFields } from "./commands/custom-fields.ts";
import { registerEvents } from "./commands/events.ts";
import { newCmdExport } from "./commands/export.ts";
import { newCmdImport } from "./commands/import.ts";
import { newCmdLogin } from "./commands/login.ts";
import { registerRentals } from "./commands/rentals.ts";
import { loadCustomFieldsHelp } from "./commands/resource/custom-help.ts";
import { registerResources } from "./commands/resources.ts";
import { registerTokens } from "./commands/tokens.ts";
import { registerAttachments } from "./commands/attachments.ts";
import { registerUsage } from "./commands/usage.ts";
import { registerWebhooks } from "./commands/webhooks.ts";
import { EXIT } from "./exit-codes.ts";
import type { Factory } from "./factory.ts";
import { OUTPUT_FORMATS } from "./output.ts";
import { reportError } from "./report-error.ts";
import packageJson from "../package.json" with { type: "json" };

const { version } = packageJson as { version: string };

const EXAMPLES = `
EXAMPLES
  erp login                                  save the API URL and token
  erp projects list --status active --fields name,status
  erp workers create name="Ann Lee" email=ann@example.com
  erp workers get 7 --include                shows the ETag for --if-match
  erp import workers staff.csv --rejects fix-me.csv
  erp events --follow                        the change feed, live
  eval "$(erp completion bash)"              tab completion

Exit codes: 0 ok, 1 API or network error, 2 usage error, 3 import finished with rejected rows.
NO_COLOR turns colour off; data goes to stdout, progress and errors to stderr.`;

export function buildProgram(f: Factory): Command {
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
    .addHelpText("after", EXAMPLES)
    .configureOutput({
      writeOut: (text) => void f.io.stdout.write(text),
      writeErr: (text) => void f.io.stderr.write(text),
    })
    .showSuggestionAfterError()
    .showHelpAfterError("(run with --help for usage)")
    // Every usage mistake ends in exit 2, which commander would otherwise report as 1.
    .exitOverride();

  registerResources(program);
  registerCustomFields(program);
  adopt(program, newCmdImport(f));
  adopt(program, newCmdExport(f));
  registerUsage(program);
  adopt(program, newCmdLogin(f));
  registerAuth(program);
  registerTokens(program);
  registerAttachments(program);
  registerRentals(program);
  registerWebhooks(program);
  registerEvents(program);
  registerCompletion(program);
  return program;
}

/**
 * Adds a command built on its own (cli/cli's NewCmd) with the settings its subcommands would have
 * taken from the program had they been made there: the exit override, the output, the help.
 */
function adopt(parent: Command, command: Command): void {
  parent.addCommand(command);
  const inherit = (child: Command, from: Command): void => {
    child.copyInheritedSettings(from);
    for (const grandchild of child.commands) inherit(grandchild, child);
  };
  inherit(command, parent);
}

/** Runs the command line `argv` (as process.argv: the runtime and script first); its exit code. */
export async function runProgram(f: Factory, argv: readonly string[]): Promise<number> {
  const program = buildProgram(f);
  await loadCustomFieldsHelp(f, argv);
  try {
    await program.parseAsync([...argv]);
    return f.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    return reportError(error, f.io.stderr);
  }
}
