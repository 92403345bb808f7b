// `erp auth status` (which API, which token, from where, and whether the API accepts it) and
// `erp logout` (forget a saved login).
import type { Command } from "commander";
import { ErpClient, PermissionError } from "@erp/sdk";
import {
  configPath,
  profileName,
  removeProfile,
  resolveConnection,
  savedProfiles,
} from "../config.ts";
import { formatOf, globalOptions } from "../context.ts";
import { printOne } from "../output.ts";

/** erp_abcd…wxyz: enough to tell tokens apart, not enough to use one. */
const masked = (token: string): string =>
  token.length > 12 ? `${token.slice(0, 8)}…${token.slice(-4)}` : "…";

export function registerAuth(program: Command): void {
  const auth = program.command("auth").summary("auth: status");
  auth
    .command("status")
    .summary(
      "which API and token the commands use, where they come from, and whether the API accepts them",
    )
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp auth status\n  erp auth status --profile staging -o json\n",
    )
    .action(async (_options: unknown, command: Command) => {
      const connection = resolveConnection(globalOptions(command));
      const started = performance.now();
      const client = new ErpClient({
        baseUrl: connection.baseUrl,
        token: connection.token,
        maxRetries: 0,
      });
      // Any token may list the company's tokens: the one marked current is this one.
      const current = (await client.tokens.list()).find((token) => token.current);
      const accepted = Math.round(performance.now() - started);
      // The usage needs usage:read, which a narrow token may lack.
      const usage = await client.usage().catch((error: unknown) => {
        if (error instanceof PermissionError) return undefined;
        throw error;
      });
      await printOne(formatOf(command), {
        base_url: connection.baseUrl,
        base_url_from: connection.baseUrlFrom,
        token: masked(connection.token),
        token_from: connection.tokenFrom,
        token_name: current?.name ?? "",
        scopes: current?.scopes.join(" ") ?? "",
        expires_at: current?.expires_at ?? "never",
        profile: connection.profile,
        saved_profiles: savedProfiles(configPath()).join(", "),
        api: `accepted (${accepted} ms)`,
        ...(usage ? { period: usage.period, requests_this_month: usage.requests } : {}),
      });
    });

  program
    .command("logout")
    .summary("forget the saved login (of --profile NAME, else the default one)")
    .addHelpText("after", "\nEXAMPLES\n  erp logout\n  erp logout --profile staging\n")
    .action((_options: unknown, command: Command) => {
      const profile = profileName(globalOptions(command));
      const file = configPath();
      const removed = removeProfile(file, profile);
      process.stderr.write(
        removed
          ? `Logged out: profile ${profile} removed from ${file}\n`
          : `No saved login for profile ${profile} in ${file}\n`,
      );
    });
}
