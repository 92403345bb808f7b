// A valid create body and a valid update for each resource, for tests that run over all six.
export interface ResourceSample {
  resource: string;
  addon: "api" | "estimates" | "subcontractors" | "equipment";
  title: string;
  create: Record<string, unknown>;
  update: Record<string, unknown>;
}

export const SAMPLES: ResourceSample[] = [
  { resource: "projects", addon: "api", title: "name", create: { name: "Harbour depot", address: "1 Quay St", budget_amount: "1250.5", start_date: "2026-03-01" }, update: { address: "2 Quay St", end_date: "2026-09-30" } },
  { resource: "workers", addon: "api", title: "name", create: { name: "Ada Mason", email: "ada@example.com", hourly_rate: 42 }, update: { phone: "+1 555 0100", status: "INACTIVE" } },
  { resource: "clients", addon: "api", title: "name", create: { name: "Northwind Ltd", tax_id: "NW-1" }, update: { billing_address: "7 Main St" } },
  { resource: "estimates", addon: "estimates", title: "title", create: { title: "Roof repair", amount: "980.00" }, update: { amount: 1010.25, valid_until: "2026-12-31" } },
  { resource: "subcontractors", addon: "subcontractors", title: "name", create: { name: "Sparks & Co", insurance_expires_on: "2027-01-31" }, update: { email: "office@sparks.example" } },
  {
    resource: "equipment", addon: "equipment", title: "name", update: { status: "MAINTENANCE" },
    // serial_number is unique per company, so every use gets a fresh one.
    get create() {
      return { name: "Excavator 5t", serial_number: `EX-${crypto.randomUUID().slice(0, 8)}`, daily_rate: "350" };
    },
  },
];
