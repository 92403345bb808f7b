// Periodic clean-up every server process runs: idempotency and item keys past their replay window,
// rate-limit windows that can no longer count, events past retention and records deleted more than
// 90 days ago, with their attachments. Concurrent runs in several processes are harmless.
import { errorLabel } from "./db/errors.ts";
import { purgeRateCounts } from "./auth/rate-limit.ts";
import type { Database } from "./db/client.ts";
import { purgeExpiredEvents } from "./events/retention.ts";
import { log } from "./base/log.ts";
import { purgeExpiredKeys } from "./writes/idempotency-store.ts";
import { purgeExpiredItemKeys } from "./writes/item-keys.ts";
import { purgeDeletedRecords } from "./writes/purge-deleted.ts";
import { purgeOrphanAttachments } from "./attachments/purge.ts";
import type { AttachmentStore } from "./attachments/store.ts";

/** One round; with the attachments' store, the purged records' attachments go too. */
export async function purgeExpired(db: Database, attachments?: AttachmentStore): Promise<void> {
  await purgeExpiredKeys(db);
  await purgeExpiredItemKeys(db);
  await purgeRateCounts(db);
  await purgeExpiredEvents(db);
  await purgeDeletedRecords(db);
  if (attachments) await purgeOrphanAttachments(db, attachments);
}

/** Starts the timer; the returned function stops it. */
export function startHousekeeping(
  db: Database,
  attachments: AttachmentStore,
  intervalMs = 60_000,
): () => void {
  const timer = setInterval(() => {
    purgeExpired(db, attachments).catch((error) =>
      log.throttled("warn", "housekeeping", "housekeeping failed; retrying next round", {
        error: errorLabel(error),
      }),
    );
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
