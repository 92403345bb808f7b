// `erp <resource> list`: one page, or every page with --all, in the chosen output format.
import { clientOf, formatOf } from "../../context.ts";
import { printMany, recordSink } from "../../output.ts";
import { parseLimit, parseOffset } from "../../parsers.ts";
import { resourceClient } from "../../resources.ts";
import { addFilterOptions, filterQuery } from "./filters.ts";
import type { ResourceCommand } from "./resource-command.ts";

export const list: ResourceCommand = {
  name: "list",
  summary: (spec) => `list ${spec.name} (one page; --all for every page)`,
  configure(command, spec) {
    addFilterOptions(command, spec);
    command
      .option("--limit <n>", "page size (the API caps it at 100; default 50, or 100 with --all)", parseLimit)
      .option("--offset <n>", "start at this position", parseOffset)
      .option("--all", "follow every page");
  },
  async run(spec, command, _args, options) {
    const format = formatOf(command);
    const client = resourceClient(clientOf(command), spec.name);
    const { limit, offset, all } = options as { limit?: number; offset?: number; all?: boolean };
    const query = { ...filterQuery(spec, options), limit, offset };
    if (all) {
      const sink = recordSink(format);
      for await (const record of client.list({ ...query, limit: limit ?? 100 })) await sink.write(record);
      return sink.end();
    }
    const page = await client.listPage(query);
    await printMany(format, page.data);
    const shownTo = page.meta.offset + page.data.length;
    if (shownTo < page.meta.total) {
      process.stderr.write(`${page.meta.offset + 1}–${shownTo} of ${page.meta.total}; --offset ${shownTo} for the next page, --all for every page\n`);
    }
  },
};
