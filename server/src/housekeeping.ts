// Periodic clean-up every server process runs: idempotency and item keys past their replay window,
// rate-limit windows that can no longer count, events past retention and records deleted more than
// 90 days ago, with their attachments; and, at start and every hour, the objects that uploads and
// deletes a crash broke off left in the attachments store (attachments/loose-objects.ts). Concurrent
// runs in several processes are harmless.
import { errorLabel } from "./db/errors.ts";
import { purgeRateCounts } from "./auth/rate-limit.ts";
import type { Database } from "./db/client.ts";
import { purgeExpiredEvents } from "./events/retention.ts";
import { log } from "./base/log.ts";
import { purgeExpiredKeys } from "./writes/idempotency-store.ts";
import { purgeExpiredItemKeys } from "./writes/item-keys.ts";
import { purgeDeletedRecords } from "./writes/purge-deleted.ts";
import { purgeOrphanAttachments } from "./attachments/purge.ts";
import { sweepLooseObjects } from "./attachments/loose-objects.ts";
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

/** How often the loose objects are swept: each sweep reads only the keys old enough. */
const SWEEP_INTERVAL_MS = 60 * 60_000;

/** Starts the timers (the sweep runs once right away); the returned function stops them. */
export function startHousekeeping(
  db: Database,
  attachments: AttachmentStore,
  intervalMs = 60_000,
): () => void {
  const failed = (error: unknown) =>
    log.throttled("warn", "housekeeping", "housekeeping failed; retrying next round", {
      error: errorLabel(error),
    });
  const sweep = () => sweepLooseObjects(db, attachments).catch(failed);
  void sweep();
  const timers = [
    setInterval(() => purgeExpired(db, attachments).catch(failed), intervalMs),
    setInterval(sweep, SWEEP_INTERVAL_MS),
  ];
  for (const timer of timers) timer.unref?.();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
