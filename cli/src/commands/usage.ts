// `erp usage`: this month's metered requests and the plan's quotas.
import type { Command } from "commander";
import { clientOf, formatOf } from "../context.ts";
import { printOne } from "../output.ts";

export function registerUsage(program: Command): void {
  program
    .command("usage")
    .summary("this month's metered requests and the plan's quotas")
    .action(async (_options: unknown, command: Command) => {
      const format = formatOf(command);
      await printOne(format, { ...(await clientOf(command).usage()) });
    });
}
