// `erp login` (cli/cli's shape): asks for (or takes) the base URL and token, checks them with one
// request, saves them 0600. The token never shows: typed at a prompt that does not echo it, or read
// from stdin with --token-stdin (`--token` works too, but leaves it in the shell's history).
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { Command } from "commander";
import { ErpClient, type FetchLike } from "@erp/sdk";
import {
  checkBaseUrl,
  configPath,
  DEFAULT_BASE_URL,
  profileName,
  readConfig,
  writeConfig,
} from "../config.ts";
import { globalOptions } from "../context.ts";
import { EXIT, type ExitCode } from "../exit-codes.ts";
import type { Factory, Input, IOStreams, Output } from "../factory.ts";
import { UsageError } from "../usage-error.ts";

export interface LoginOptions {
  /** --base-url, if given. */
  baseUrl: string | undefined;
  /** --token, if given. */
  token: string | undefined;
  /** --token-stdin: the token is stdin's first line. */
  tokenStdin: boolean;
  profile: string;
  /** The file the login is saved in. */
  file: string;
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  fetch: FetchLike;
}

const HELP =
  "\nEXAMPLES\n" +
  "  erp login                                   # asks for both; the token is not shown\n" +
  "  erp login --base-url erp.example.com --token-stdin < token.txt   # https:// for a bare host\n" +
  "  pass show erp | erp login --profile staging --base-url localhost:3000 --token-stdin\n";

export function newCmdLogin(
  f: Factory,
  runF: (opts: LoginOptions) => Promise<ExitCode> = loginRun,
): Command {
  return new Command("login")
    .summary("save the API base URL and token for later commands (checked first)")
    .description(
      `Saves the base URL and token to ${configPath(f.env)} (mode 0600; ERP_CONFIG or XDG_CONFIG_HOME move it).\n` +
        "Takes --base-url, and the token typed at a prompt that does not show it, or from stdin with\n" +
        "--token-stdin; asks for whichever is missing. --profile NAME saves another login beside the\n" +
        "default one; select it later with --profile NAME or ERP_PROFILE.",
    )
    .option(
      "--token-stdin",
      "read the token from stdin (its first line), never from the command line",
    )
    .addHelpText("after", HELP)
    .action(async (flags: { tokenStdin?: boolean }, self: Command) => {
      const globals = globalOptions(self);
      f.exitCode = await runF({
        baseUrl: globals.baseUrl,
        token: globals.token,
        tokenStdin: flags.tokenStdin === true,
        profile: profileName(globals, f.env),
        file: configPath(f.env),
        io: f.io,
        env: f.env,
        fetch: f.fetch,
      });
    });
}

export async function loginRun(opts: LoginOptions): Promise<ExitCode> {
  const { io, file, profile } = opts;
  if (opts.tokenStdin && opts.token)
    throw new UsageError("give the token once: --token-stdin or --token, not both");
  if (opts.token)
    io.stderr.write(
      "warning: a token on the command line stays in your shell's history and shows in the " +
        "process list; next time type it at the prompt or pass it with --token-stdin\n",
    );
  const known =
    opts.baseUrl || opts.env.ERP_BASE_URL || readConfig(file, profile).baseUrl || DEFAULT_BASE_URL;
  const fromStdin = opts.tokenStdin ? await firstLine(io.stdin) : undefined;
  let prompter: Prompter | undefined;
  const ask = (question: string, secret = false): Promise<string> => {
    prompter ??= new Prompter(io.stdin, io.stderr);
    return prompter.ask(question, { secret });
  };
  try {
    // With --token-stdin, stdin is the token's: the base URL is the flag's, the environment's or the saved one.
    const given = opts.baseUrl || (opts.tokenStdin ? "" : await ask(`API base URL [${known}]: `));
    const baseUrl = checkBaseUrl(given || known);
    const token = opts.token || fromStdin || (await ask("API token: ", true));
    if (!token) throw new UsageError("no token given");
    // Unmetered, and it needs a valid token: a wrong URL or token fails here, before anything is saved.
    await new ErpClient({ baseUrl, token, maxRetries: 1, fetch: opts.fetch }).usage();
    writeConfig({ baseUrl, token }, file, profile);
    io.stderr.write(`Logged in to ${baseUrl}; saved to ${file} as profile ${profile}\n`);
    return EXIT.OK;
  } finally {
    (prompter as Prompter | undefined)?.close();
  }
}

/** Stdin's first line, trimmed (a token piped from a file or a password manager). */
async function firstLine(stdin: Input): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text.includes("\n")) break;
  }
  const line = text.split(/\r?\n/)[0]!.trim();
  if (!line) throw new UsageError("--token-stdin read no token: stdin was empty");
  return line;
}

/** Reads answers line by line from stdin (typed or piped), prompting on stderr; secrets are not echoed. */
class Prompter {
  #muted = false;
  readonly #readline;
  readonly #lines;

  constructor(
    private readonly stdin: Input,
    private readonly stderr: Output,
  ) {
    const echo = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.#muted) stderr.write(chunk);
        done();
      },
    });
    this.#readline = createInterface({
      input: stdin,
      output: echo,
      terminal: stdin.isTTY === true,
    });
    this.#lines = this.#readline[Symbol.asyncIterator]();
  }

  async ask(question: string, { secret = false } = {}): Promise<string> {
    this.stderr.write(question);
    this.#muted = secret;
    const line = await this.#lines.next();
    this.#muted = false;
    // A typed secret's Enter was not echoed; piped answers are not echoed at all.
    if (secret || !this.stdin.isTTY) this.stderr.write("\n");
    if (line.done)
      throw new UsageError(
        `no answer to "${question.trim()}" (stdin ended); pass --base-url and --token-stdin instead`,
      );
    return String(line.value).trim();
  }

  close(): void {
    this.#readline.close();
  }
}
