// `erp login`: asks for (or takes) the base URL and token, checks them with one request, saves them 0600.
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import type { Command } from "commander";
import { ErpClient } from "@erp/sdk";
import {
  checkBaseUrl,
  configPath,
  DEFAULT_BASE_URL,
  profileName,
  readConfig,
  writeConfig,
} from "../config.ts";
import { globalOptions } from "../context.ts";
import { UsageError } from "../usage-error.ts";

export function registerLogin(program: Command): void {
  program
    .command("login")
    .summary("save the API base URL and token for later commands (checked first)")
    .description(
      `Saves the base URL and token to ${configPath()} (mode 0600; ERP_CONFIG or XDG_CONFIG_HOME move it).\n` +
        "Takes --base-url and --token, and asks for whichever is missing. --profile NAME saves another login\n" +
        "beside the default one; select it later with --profile NAME or ERP_PROFILE.\n\n" +
        "EXAMPLES\n" +
        "  erp login                                   # asks for both\n" +
        "  erp login --base-url erp.example.com --token erp_…   # https:// is assumed for a bare host\n" +
        "  erp login --profile staging --base-url localhost:3000",
    )
    .action(async (_options: unknown, command: Command) => {
      const flags = globalOptions(command);
      const file = configPath();
      const profile = profileName(flags);
      const known =
        flags.baseUrl ||
        process.env.ERP_BASE_URL ||
        readConfig(file, profile).baseUrl ||
        DEFAULT_BASE_URL;
      const prompter = flags.baseUrl && flags.token ? undefined : new Prompter();
      try {
        const baseUrl = checkBaseUrl(
          flags.baseUrl || (await prompter!.ask(`API base URL [${known}]: `)) || known,
        );
        const token = flags.token || (await prompter!.ask("API token: ", { secret: true }));
        if (!token) throw new UsageError("no token given");
        // Unmetered, and it needs a valid token: a wrong URL or token fails here, before anything is saved.
        await new ErpClient({ baseUrl, token, maxRetries: 1 }).usage();
        writeConfig({ baseUrl, token }, file, profile);
        process.stderr.write(`Logged in to ${baseUrl}; saved to ${file} as profile ${profile}\n`);
      } finally {
        prompter?.close();
      }
    });
}

/** Reads answers line by line from stdin (typed or piped), prompting on stderr; secrets are not echoed. */
class Prompter {
  #muted = false;
  readonly #output = new Writable({
    write: (chunk, _encoding, done) => {
      if (!this.#muted) process.stderr.write(chunk);
      done();
    },
  });
  readonly #readline = createInterface({
    input: process.stdin,
    output: this.#output,
    terminal: process.stdin.isTTY === true,
  });
  readonly #lines = this.#readline[Symbol.asyncIterator]();

  async ask(question: string, { secret = false } = {}): Promise<string> {
    process.stderr.write(question);
    this.#muted = secret;
    const line = await this.#lines.next();
    this.#muted = false;
    // A typed secret's Enter was not echoed; piped answers are not echoed at all.
    if (secret || !process.stdin.isTTY) process.stderr.write("\n");
    if (line.done)
      throw new UsageError(
        `no answer to "${question.trim()}" (stdin ended); pass --base-url and --token instead`,
      );
    return String(line.value).trim();
  }

  close(): void {
    this.#readline.close();
  }
}
