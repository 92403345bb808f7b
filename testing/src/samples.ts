// A valid create body and a valid update for each collection of records, keyed by the generated
// collection names: a collection without a sample does not compile, so the suites that run over
// every resource (crud, tenant walls, hostile input) cannot skip one.
import { definitionNamed } from "@erp/server/registry";
import { RECORD_COLLECTIONS, segmentOf, type RecordCollection } from "./collections.ts";

export interface Sample {
  /** The field that names a record (`name`, `title`). */
  title: string;
  create: Record<string, unknown>;
  update: Record<string, unknown>;
}

/** A sample, the path segment of its collection (`/v1/{resource}`) and the add-on it needs. */
export interface ResourceSample extends Sample {
  resource: string;
  addon: string;
}

const BY_COLLECTION: Record<RecordCollection, Sample> = {
  projects: {
    title: "name",
    create: {
      name: "Harbour depot",
      address: "1 Quay St",
      budget_amount: "1250.5",
      start_date: "2026-03-01",
    },
    update: { address: "2 Quay St", end_date: "2026-09-30" },
  },
  workers: {
    title: "name",
    create: { name: "Ada Mason", email: "ada@example.com", hourly_rate: 42 },
    update: { phone: "+1 555 0100", status: "INACTIVE" },
  },
  clients: {
    title: "name",
    create: { name: "Northwind Ltd", tax_id: "NW-1" },
    update: { billing_address: "7 Main St" },
  },
  estimates: {
    title: "title",
    create: { title: "Roof repair", amount: "980.00" },
    update: { amount: 1010.25, valid_until: "2026-12-31" },
  },
  subcontractors: {
    title: "name",
    create: { name: "Sparks & Co", insurance_expires_on: "2027-01-31" },
    update: { email: "office@sparks.example" },
  },
  equipment: {
    title: "name",
    update: { status: "MAINTENANCE" },
    // serial_number is unique per company, so every use gets a fresh one.
    get create() {
      return {
        name: "Excavator 5t",
        serial_number: `EX-${crypto.randomUUID().slice(0, 8)}`,
        daily_rate: "350",
      };
    },
  },
};

/** Every collection's sample, in the document's order; `create` is read anew at each use. */
export const SAMPLES: ResourceSample[] = RECORD_COLLECTIONS.map((name) => {
  const sample = BY_COLLECTION[name];
  return {
    resource: segmentOf(name),
    addon: definitionNamed(segmentOf(name)).addon,
    title: sample.title,
    update: sample.update,
    get create() {
      return sample.create;
    },
  };
});
