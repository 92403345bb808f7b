// Plan quotas on live records (projects, workers). The counter of a limited resource is read and
// locked before a write decides anything (writes/lookups.ts), each create takes a slot from it in
// memory, in order (so item k of a batch is refused exactly when the slots before it ran out), and
// the write's counter statement adds what was taken. On one database the lock queues concurrent
// creates of a company; on a Galera cluster two nodes taking the last slot write the same row and
// certification lets exactly one commit (the other is retried and finds the quota full).
import type { Company } from "../auth/company.ts";
import { quotaExceeded } from "../refusals/catalogue.ts";
import type { ResourceDefinition } from "../resources/definition.ts";

/** The slots of one resource's quota that a write's creates take, in order. */
export class QuotaLedger {
  #taken = 0;

  /** `used` is the locked counter of a limited plan, undefined when the plan does not limit the resource. */
  constructor(
    private readonly company: Company,
    private readonly used: number | undefined,
  ) {}

  /** Takes a slot for a create of `def`, or refuses it (402 quota_exceeded). */
  take(def: ResourceDefinition): void {
    const resource = def.quota;
    const limit = resource ? this.company.limits[resource] : null;
    if (
      resource &&
      limit !== null &&
      this.used !== undefined &&
      this.used + this.#taken + 1 > limit
    ) {
      throw quotaExceeded(this.company.plan, resource, this.used + this.#taken, limit);
    }
    this.#taken += 1;
  }
}
