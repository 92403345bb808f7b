// Type-level tests: each @ts-expect-error line must fail to compile, every other line must compile.
// Checked by sdk/test/unit/type-errors.test.ts with tsc; excluded from the root tsconfig on purpose.
import {
  type Client,
  ConflictError,
  type CreateResult,
  type DeletedRecord,
  type DryRunCreated,
  ErpClient,
  type Event,
  type Project,
  type Trade,
} from "./mod.ts";

const erp = new ErpClient({ baseUrl: "http://localhost:3000", token: "erp_x" });

export async function fieldsNarrowTheRecord(): Promise<void> {
  const one = await erp.projects.get(7, { fields: ["name", "status"] });
  const name: string = one.name;
  const id: number = one.id;
  // @ts-expect-error budget_amount was not picked
  one.budget_amount;
  // @ts-expect-error "nam" is not a project field
  await erp.projects.get(7, { fields: ["nam"] });
  // @ts-expect-error trade_id is a worker field, not a project field
  erp.projects.list({ fields: ["trade_id"] });
  // @ts-expect-error list() pages by after_id; offset is for listPage()
  erp.projects.list({ offset: 100 });
  await erp.projects.listPage({ offset: 100, total: false });
  for await (const p of erp.projects.list({ fields: ["code"] })) {
    const code: string | null = p.code;
    // @ts-expect-error name was not picked
    p.name;
    void code;
  }
  void name, id;
}

export async function statusesAreUnions(): Promise<void> {
  // @ts-expect-error "OPEN" is not a project status
  erp.projects.list({ status: "OPEN" });
  // @ts-expect-error "ACTIVE" is not an equipment status
  await erp.equipment.update(1, { status: "ACTIVE" });
  // @ts-expect-error ON_HOLD is a project status, not an estimate status
  await erp.estimates.create({ title: "Roof", status: "ON_HOLD" });
  const full: Project = await erp.projects.get(1);
  // @ts-expect-error a project status is never "SENT"
  if (full.status === "SENT") return;
}

export async function filtersAreTyped(): Promise<void> {
  await erp.projects.list({ include_deleted: true, updated_since: "2026-01-01T00:00:00Z" }).toArray();
  // @ts-expect-error include_deleted is a boolean, not the text of one
  erp.projects.list({ include_deleted: "true" });
}

export async function expandNarrowsTheRecord(): Promise<void> {
  for await (const project of erp.projects.list({ expand: ["client"] })) {
    const client: Client | DeletedRecord | null = project.client;
    if (client !== null && !("deleted" in client)) {
      const name: string = client.name;
      void name;
    }
    // @ts-expect-error the client is embedded, the budget estimate was not asked for
    project.budget_estimate;
  }
  const plain = await erp.projects.get(1);
  // @ts-expect-error without expand a project has client_id, no client
  plain.client;
  const one = await erp.projects.get(1, { expand: "budget_estimate.client", fields: ["name"] });
  if (one.budget_estimate && !("deleted" in one.budget_estimate)) {
    const title: string = one.budget_estimate.title;
    const client: Client | DeletedRecord | null = one.budget_estimate.client;
    void title, client;
  }
  // @ts-expect-error name was picked, code was not (the embedded records stay whole)
  one.code;
  const page = await erp.equipment.rentals(3).listPage({ expand: ["project.client", "equipment"] });
  for (const rental of page.data) {
    if (rental.project && !("deleted" in rental.project) && rental.project.client) {
      const deleted: boolean = "deleted" in rental.project.client;
      void deleted;
    }
    // @ts-expect-error project.client embeds the project's client, not its budget estimate
    if (rental.project && !("deleted" in rental.project)) rental.project.budget_estimate;
  }
  const worker = await erp.workers.get(1, { expand: ["trade"] });
  const trade: Trade | DeletedRecord | null = worker.trade;
  // @ts-expect-error "trade" is not a reference of projects
  erp.projects.list({ expand: ["trade"] });
  // @ts-expect-error expand goes two levels, no deeper
  erp.equipment.rentals(3).list({ expand: "project.budget_estimate.client" });
  // @ts-expect-error clients reference nothing to expand
  erp.clients.list({ expand: ["project"] });
  void trade;
}

export async function sortAndRangesAreTyped(): Promise<void> {
  await erp.workers
    .list({ sort: ["name", "-hired_on"], hired_on: { gte: "2024-01-01", lt: "2025-01-01" } })
    .toArray();
  await erp.projects.listPage({
    sort: "-budget_amount",
    budget_amount: { gt: "10000" },
    status: ["ACTIVE", "ON_HOLD"],
  });
  await erp.trades.list({ sort: "-name" }).toArray();
  // @ts-expect-error address is free text over 200 characters: not sortable
  erp.projects.list({ sort: "address" });
  // @ts-expect-error a descending sort is "-name", not "+name"
  erp.workers.list({ sort: ["+name"] });
  // @ts-expect-error hired_on is a worker field, not a client one
  erp.clients.list({ sort: "hired_on" });
  // @ts-expect-error trades have no status to sort by
  erp.trades.list({ sort: "status" });
  // @ts-expect-error a range's bounds are gte, gt, lt and lte
  erp.workers.list({ hired_on: { after: "2024-01-01" } });
  // @ts-expect-error name has no range
  erp.workers.list({ name: { gte: "A" } });
  // @ts-expect-error a sorted page's next_cursor is an opaque string
  const cursor: number = (await erp.workers.listPage({ sort: "name" })).meta.next_cursor;
  void cursor;
}

/** Event resources and types are unions: a name outside them does not compile, a switch over actions is exhaustive. */
export function eventsAreUnions(event: Event): string {
  // @ts-expect-error "invoices" is not a resource of the API
  if (event.resource === "invoices") return "never";
  // @ts-expect-error "project.archived" is not an event type
  if (event.type === "project.archived") return "never";
  const [noun, action] = event.type.split(".") as [string, "created" | "updated" | "deleted"];
  switch (action) {
    case "created": case "updated": case "deleted": return noun;
  }
}

export async function inputsAreChecked(): Promise<void> {
  // @ts-expect-error the title field is required on create
  await erp.estimates.create({ amount: "10.00" });
  // @ts-expect-error id is read-only
  await erp.projects.update(1, { id: 2 });
  // @ts-expect-error unknown fields are refused
  await erp.workers.create({ name: "Ann", wage: 10 });
  // @ts-expect-error trade_id is not a filter of clients
  erp.clients.list({ trade_id: 1 });
  await erp.workers.create({ name: "Ann", hourly_rate: 42.5 });
  const project = await erp.projects.get(1);
  // @ts-expect-error money comes back as a decimal string, not a number
  const budget: number | null = project.budget_amount;
  void budget;
}

export async function resultsAreTyped(): Promise<void> {
  const made = await erp.projects.create({ name: "Depot" });
  const id: number = made.id;
  const preview: DryRunCreated = await erp.projects.create({ name: "Depot" }, { dryRun: true });
  // @ts-expect-error a dry-run create has no id
  const none: number = preview.id;
  const either: CreateResult = await erp.projects.create({ name: "Depot" }, { dryRun: Math.random() > 0.5 });
  // @ts-expect-error the id is null when it was a dry run
  const maybe: number = either.id;
  const upd = await erp.projects.update(1, { status: "ACTIVE" });
  const from: Project["status"] | undefined = upd.changes.status?.from;
  // @ts-expect-error changes are keyed by project fields
  upd.changes.title;
  const rental = await erp.equipment.rentals(3).update(9, { billed: true });
  const billed: boolean = rental.record.billed;
  // @ts-expect-error rentals cannot be deleted
  erp.equipment.rentals(3).delete(9);
  const trade = await erp.trades.create({ name: "Scaffolding" }, { dryRun: false });
  await erp.trades.update(trade.id, { name: "Scaffolding and access" });
  await erp.trades.restore((await erp.trades.delete(trade.id)).id);
  // @ts-expect-error lookups are written one at a time: no batches
  erp.trades.batch([{ name: "Mason" }]);
  // @ts-expect-error a trade is created with its name
  erp.trades.create({ external_id: "T-1" });
  // @ts-expect-error an equipment category has no status
  erp.equipmentCategories.list({ fields: ["status"] });
  void id, none, maybe, from, billed;
}

export function errorsAreTyped(error: unknown): void {
  if (error instanceof ConflictError) {
    const status: 409 = error.status;
    // @ts-expect-error ConflictError codes are the 409 codes
    if (error.code === "validation_failed") return;
    void status;
  }
}

export async function reportsAreTypedByTheirGroupKeysAndMetrics(): Promise<void> {
  const report = await erp.projects.aggregate({
    groupBy: ["status", "month(start_date)"],
    metrics: ["count", "sum(budget_amount)"],
    status: ["ACTIVE", "ON_HOLD"],
  });
  const row = report.data[0]!;
  const count: number = row.count;
  const sum: string | null = row["sum(budget_amount)"];
  const status = row.group.status;
  const currency: string | undefined = row.group.currency;
  const groups: number = report.meta.groups;
  // @ts-expect-error avg(budget_amount) was not asked for
  row["avg(budget_amount)"];
  // @ts-expect-error name is free text: no report groups by it
  await erp.projects.aggregate({ groupBy: ["name"] });
  // @ts-expect-error hired_on is a worker field
  await erp.projects.aggregate({ metrics: ["min(hired_on)"] });
  // @ts-expect-error a report has no sort
  await erp.projects.aggregate({ sort: "name" });
  const counted: number = (await erp.workers.aggregate()).data[0]!.count;
  void count, sum, status, currency, groups, counted;
}
