// `erp events [--follow]`: the change feed, as NDJSON or a table; `erp listen`: follows the feed and
// prints or forwards each event, signed with the profile's local secret, like `stripe listen`.
// Both follow by long-poll, from the newest event unless told where to start.
import { createHmac, randomBytes } from "node:crypto";
import type { Command } from "commander";
import type { ErpClient, Event } from "@erp/sdk";
import { configPath, listenSecret, profileName } from "../config.ts";
import { clientOf, formatOf, globalOptions } from "../context.ts";
import { recordSink } from "../output.ts";

interface FeedFlags {
  follow?: boolean;
  after?: string;
  type?: string;
  resource?: string;
  events?: string;
  forwardTo?: string;
}

type FeedRun = (
  erp: ErpClient,
  flags: FeedFlags,
  stop: AbortSignal,
  command: Command,
) => Promise<void>;

/** A feed command's action: its client, and a signal Ctrl-C aborts so a follow ends cleanly. */
function feedAction(run: FeedRun): (flags: FeedFlags, command: Command) => Promise<void> {
  return async (flags, command) => {
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    await run(clientOf(command), flags, stop.signal, command);
  };
}

/** POSTs the event as a webhook endpoint would get it, signed with `secret`; returns the outcome. */
async function forward(event: Event, url: string, secret: string): Promise<string> {
  const body = JSON.stringify(event);
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "erp-event-id": event.id,
      "erp-signature": signature,
    },
    body,
  }).then(
    (r) => `${r.status}`,
    (error: Error) => `failed: ${error.message}`,
  );
}

export function registerEvents(program: Command): void {
  program
    .command("events")
    .summary("the change feed: every committed change in commit order (--follow to keep watching)")
    .option("--after <cursor>", "only events after this event id (or a next_cursor)")
    .option(
      "--type <type>",
      "only this type: project.created, or project.* for every action on projects",
    )
    .option("--resource <name>", "only events of this resource (projects, workers, …, rentals)")
    .option(
      "--follow",
      "keep printing new events as they commit, until Ctrl-C (from now on, or after --after)",
    )
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp events --type project.* -o ndjson\n  erp events --follow\n  erp events " +
        "--follow --after evt_0000000042x…\n",
    )
    .action(
      feedAction(async (erp, flags, stop, command) => {
        const sink = recordSink(flags.follow ? "ndjson" : formatOf(command));
        const query = { after: flags.after, type: flags.type, resource: flags.resource };
        const events = flags.follow
          ? erp.events.follow({ ...query, from: "latest", signal: stop })
          : erp.events.list(query);
        for await (const event of events) await sink.write({ ...event });
        await sink.end();
      }),
    );

  program
    .command("listen")
    .summary(
      "follow the feed and print each event, or POST it (signed) to a local URL, like a webhook",
    )
    .addHelpText(
      "after",
      "\nEXAMPLES\n  erp listen --events project.*\n  erp listen --forward-to " +
        "http://localhost:4000/hooks   # verify with the printed secret\n",
    )
    .option(
      "--events <types>",
      "comma-separated types to pass on: project.*, worker.updated, … (default every event)",
    )
    .option(
      "--forward-to <url>",
      "POST each event here with ERP-Event-Id and ERP-Signature, as a webhook endpoint would get it",
    )
    .option("--after <cursor>", "start after this event instead of from now")
    .action(
      feedAction(async (erp, flags, stop, command) => {
        const patterns = (flags.events ?? "*")
          .split(",")
          .map((pattern) => pattern.trim())
          .filter(Boolean);
        const wanted = (type: string): boolean =>
          patterns.some((p) => p === "*" || p === type || p === `${type.split(".")[0]}.*`);
        const secret = listenSecret(
          configPath(),
          profileName(globalOptions(command)),
          () => `whsec_${randomBytes(24).toString("base64url")}`,
        );
        // From now on, unless told otherwise: one request says where the feed ends, so "Ready" means
        // every event committed after it will be shown.
        const after =
          flags.after ??
          (await erp.events.listPage({ after: "latest" }, { signal: stop })).meta.next_cursor ??
          undefined;
        process.stderr.write(
          `Ready. Listening for ` +
            `${patterns.join(", ")}${flags.forwardTo ? `, forwarding to ${flags.forwardTo}` : ""}. ` +
            `Signing secret: ${secret} (Ctrl-C to stop)\n`,
        );
        for await (const event of erp.events.follow({ after, signal: stop })) {
          if (!wanted(event.type)) continue;
          if (!flags.forwardTo) process.stdout.write(`${JSON.stringify(event)}\n`);
          else
            process.stderr.write(
              `${event.type} ${event.id} → ${flags.forwardTo} [${await forward(event, flags.forwardTo, secret)}]\n`,
            );
        }
      }),
    );
}
