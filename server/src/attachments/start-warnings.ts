// What a starting server says about where attachments go (docs/attachments.md): a directory of
// this machine is seen by no other server, so when the database may be shared (it is not on this
// machine, or other server processes counted requests in it lately) the warning is loud, since
// an upload made through one server would be missing on the others.
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { selectRows } from "../db/sql.ts";
import type { LinkSigner } from "./links.ts";
import type { AttachmentStore } from "./store.ts";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** Other server processes that counted requests lately (their counts are kept two minutes). */
async function otherProcesses(db: Executor): Promise<number> {
  const rows = await selectRows<{ processes: number }>(
    db,
    sql`SELECT COUNT(DISTINCT process_id) AS processes FROM rate_counts
      WHERE window_start > (UNIX_TIMESTAMP() - 600) * 1000`,
  );
  return Number(rows[0]?.processes ?? 0);
}

/** The warnings to print at start, loud ones in capitals; none for a shared store with set secrets. */
export async function startWarnings(
  db: Executor,
  databaseUrl: string,
  store: AttachmentStore,
  links: LinkSigner,
): Promise<string[]> {
  const warnings: string[] = [];
  if (store.local) {
    const host = new URL(databaseUrl).hostname;
    const shared = !LOOPBACK.has(host) || (await otherProcesses(db).catch(() => 0)) > 0;
    warnings.push(
      shared
        ? `WARNING: ATTACHMENTS ARE KEPT IN ${store.location} ON THIS MACHINE, BUT THE DATABASE MAY BE ` +
            "SHARED WITH OTHER SERVERS: THEY WILL NOT FIND THESE FILES (AND THIS ONE NOT THEIRS). " +
            "Set ATTACHMENTS_STORE=s3://bucket/prefix on every server (docs/attachments.md)."
        : `attachments are kept in ${store.location} (this machine only; ATTACHMENTS_STORE=s3://… to share them)`,
    );
  }
  if (links.ephemeral)
    warnings.push(
      "ATTACHMENT_LINK_SECRETS is not set: attachment links are signed with a secret of this process, " +
        "valid only on it and until it restarts (docs/attachments.md).",
    );
  return warnings;
}
