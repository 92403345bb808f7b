// `erp <resource> list`: one page, or every page with --all, in the chosen output format.
import { clientOf, formatOf } from "../../context.ts";
import { printMany, recordSink } from "../../output.ts";
import { parseLimit, parseOffset } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import { UsageError } from "../../usage-error.ts";
import { addFilterOptions, filterQuery } from "./filters.ts";
import { listHelp } from "./help.ts";
import type { ResourceCommand } from "./resource-command.ts";

export const list: ResourceCommand = {
  name: "list",
  summary: (spec) => `list ${spec.name} (one page; --all for every page)`,
  configure(command, spec) {
    addFilterOptions(command, spec);
    command
      .option(
        "--limit <n>",
        "page size (the API caps it at 100; default 50, or 100 with --all)",
        parseLimit,
      )
      .option("--offset <n>", "start at this position (one page; not with --all)", parseOffset)
      .option("--all", "follow every page");
  },
  help: listHelp,
  async run(spec, command, _args, options) {
    const format = formatOf(command);
    const client = resourceClient(clientOf(command), spec.name);
    const { limit, offset, all } = options as { limit?: number; offset?: number; all?: boolean };
    if (all) {
      if (offset !== undefined)
        throw new UsageError(
          "--all follows every page from the first record; --offset is for one page",
        );
      // Paged on after_id (every page costs the server the same, however deep), without counting a total.
      const sink = recordSink(format);
      for await (const record of client.list({
        ...filterQuery(spec, options),
        limit: limit ?? 100,
        total: false,
      }))
        await sink.write(record);
      return sink.end();
    }
    const page = await client.listPage({ ...filterQuery(spec, options), limit, offset });
    await printMany(format, page.data);
    const { offset: start = 0, total = 0 } = page.meta;
    const shownTo = start + page.data.length;
    if (shownTo < total) {
      process.stderr.write(
        `${start + 1}–${shownTo} of ${total}; --offset ${shownTo} for the next page, --all for every page\n`,
      );
    }
  },
};
