// `erp tokens list|create|revoke`: the company's API tokens (docs/tokens.md).
import type { Command } from "commander";
import type { TokenScope } from "@erp/sdk";
import { clientOf, formatOf } from "../context.ts";
import { printMany, printOne } from "../output.ts";
import { parseId } from "../parsers.ts";
import { UsageError } from "../usage-error.ts";

const days = (value: string): number => {
  if (!/^[1-9][0-9]*$/.test(value))
    throw new UsageError("--expires-in-days takes a whole number of days");
  return Number(value);
};
const scopeList = (value: string): TokenScope[] =>
  value
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean) as TokenScope[];

export function registerTokens(program: Command): void {
  const tokens = program
    .command("tokens")
    .summary("the company's API tokens: list, create, revoke");

  tokens
    .command("list")
    .summary("every live token: name, scopes, expiry, last use (never a secret)")
    .addHelpText("after", "\nEXAMPLES\n  erp tokens list\n  erp tokens list -o json\n")
    .action(async (_options: unknown, command: Command) => {
      const list = await clientOf(command).tokens.list();
      await printMany(
        formatOf(command),
        list.map((token) => ({ ...token, scopes: token.scopes.join(" ") })),
      );
    });

  tokens
    .command("create")
    .summary("make a token with a name, scopes and an expiry; its secret is printed once")
    .requiredOption("--name <name>", "what the token is for, e.g. import-bot")
    .requiredOption(
      "--scopes <list>",
      "comma-separated scopes, e.g. workers:write,events:read (see docs/tokens.md)",
      scopeList,
    )
    .option("--expires-in-days <n>", "the token stops working after this many days", days)
    .option("--dry-run", "validate only")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp tokens create --name import-bot --scopes workers:write " +
        "--expires-in-days 30\n  erp tokens create --name reports --scopes read\n",
    )
    .action(
      async (
        options: { name: string; scopes: TokenScope[]; expiresInDays?: number; dryRun?: boolean },
        command: Command,
      ) => {
        const created = await clientOf(command).tokens.create(
          {
            name: options.name,
            scopes: options.scopes,
            ...(options.expiresInDays === undefined
              ? {}
              : { expires_in_days: options.expiresInDays }),
          },
          { dryRun: options.dryRun === true },
        );
        await printOne(formatOf(command), { ...created });
      },
    );

  tokens
    .command("revoke")
    .argument("<id>", "the token's id (erp tokens list)", parseId)
    .summary("revoke a token: it stops working within a second on every server")
    .option("--dry-run", "validate only")
    .addHelpText("after", "\nEXAMPLES\n  erp tokens revoke 12\n")
    .action(async (id: number, options: { dryRun?: boolean }, command: Command) => {
      await printOne(
        formatOf(command),
        await clientOf(command).tokens.revoke(id, { dryRun: options.dryRun === true }),
      );
    });
}
