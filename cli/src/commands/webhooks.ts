// `erp webhooks list|create|test|replay|rotate-secret`: webhook endpoints, and what a developer does
// with one while building a receiver or recovering from an outage.
import type { Command } from "commander";
import { clientOf, formatOf } from "../context.ts";
import { printMany, printOne } from "../output.ts";
import { parseId } from "../parsers.ts";
import { UsageError } from "../usage-error.ts";

type Json = Record<string, unknown>;

/** A whole number of seconds from 0 to 7 days, for --expires-in. */
function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds > 7 * 24 * 3600)
    throw new UsageError(
      `--expires-in must be whole seconds from 0 to 604800 (7 days), not ${value}`,
    );
  return seconds;
}

export function registerWebhooks(program: Command): void {
  const webhooks = program
    .command("webhooks")
    .summary("webhook endpoints: list, create, test, replay, rotate-secret");

  webhooks
    .command("list")
    .summary("the company's webhook endpoints (never their secrets)")
    .action(async (_options: Json, command: Command) => {
      const endpoints = await clientOf(command).webhookEndpoints.list();
      await printMany(
        formatOf(command),
        endpoints.map((endpoint) => ({ ...endpoint })),
      );
    });

  webhooks
    .command("create")
    .argument("<url>", "where to POST the events (https)")
    .summary("add an endpoint; prints its signing secret, this once")
    .option("--events <patterns>", "comma-separated event types: project.*, worker.updated, *", "*")
    .option("--description <text>", "what it is for")
    .option(
      "--include-sensitive",
      "deliver sensitive fields too (hourly_rate, tax ids); needs a token holding `sensitive`",
    )
    .option("--dry-run", "validate only")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp webhooks create https://example.com/hooks --events 'project.*,worker.updated'\n",
    )
    .action(
      async (
        url: string,
        options: {
          events: string;
          description?: string;
          includeSensitive?: boolean;
          dryRun?: boolean;
        },
        command: Command,
      ) => {
        const made = await clientOf(command).webhookEndpoints.create(
          {
            url,
            events: options.events.split(",").map((event) => event.trim()) as never,
            ...(options.description === undefined ? {} : { description: options.description }),
            ...(options.includeSensitive ? { include_sensitive: true } : {}),
          },
          { dryRun: options.dryRun === true },
        );
        await printOne(formatOf(command), { ...made });
      },
    );

  webhooks
    .command("test")
    .argument("<id>", "the endpoint's id", parseId)
    .summary("send it a signed ping now and show the attempt")
    .action(async (id: number, _options: Json, command: Command) => {
      const attempt = await clientOf(command).webhookEndpoints.test(id);
      await printOne(formatOf(command), { ...attempt });
      if (attempt.status !== "delivered") process.exitCode = 1;
    });

  webhooks
    .command("replay")
    .argument("<id>", "the endpoint's id", parseId)
    .summary("queue the events after a cursor (or since a time) again, once each, in feed order")
    .option("--after <event-id>", "the events after this one (an evt_… id or next_cursor)")
    .option("--since <time>", "the events from this RFC 3339 time on")
    .option("--dry-run", "only tell how many would be queued")
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp webhooks replay 3 --since 2026-11-26T08:00:00Z --dry-run\n" +
        "  erp webhooks replay 3 --after evt_00000000a1x4k2m9q8r7t6v5\n",
    )
    .action(
      async (
        id: number,
        options: { after?: string; since?: string; dryRun?: boolean },
        command: Command,
      ) => {
        if ((options.after === undefined) === (options.since === undefined))
          throw new UsageError("give exactly one of --after and --since");
        const from =
          options.after !== undefined ? { after: options.after } : { since: options.since! };
        const replay = await clientOf(command).webhookEndpoints.replay(id, from, {
          dryRun: options.dryRun === true,
        });
        await printOne(formatOf(command), { ...replay });
      },
    );

  webhooks
    .command("rotate-secret")
    .argument("<id>", "the endpoint's id", parseId)
    .summary("make a new signing secret; --expires-in keeps the old one signing beside it")
    .option(
      "--expires-in <seconds>",
      "how long the old secret still signs (up to 7 days)",
      parseSeconds,
    )
    .option("--dry-run", "validate only")
    .addHelpText("after", "\nEXAMPLES\n  erp webhooks rotate-secret 3 --expires-in 3600\n")
    .action(
      async (id: number, options: { expiresIn?: number; dryRun?: boolean }, command: Command) => {
        const rotated = await clientOf(command).webhookEndpoints.rotateSecret(
          id,
          options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn },
          { dryRun: options.dryRun === true },
        );
        await printOne(formatOf(command), { ...rotated });
      },
    );
}
