// Drizzle tables. Every table holding company data leads its keys with company_id so the
// data can later be sharded by company; JS keys equal the API's field names.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  datetime,
  decimal,
  index,
  int,
  json,
  mysqlTable,
  primaryKey,
  tinyint,
  uniqueIndex,
  varbinary,
  type AnyMySqlColumn,
  type MySqlColumnBuilderBase,
  type MySqlTableExtraConfigValue,
} from "drizzle-orm/mysql-core";
import type { BuildColumns } from "drizzle-orm";
// Text columns come from here: each declares utf8mb4 and its collation (db/columns.ts).
import { char, exactText, jsonObject, mediumtext, text, varchar } from "./columns.ts";

const id = () => bigint("id", { mode: "number", unsigned: true }).autoincrement().notNull();
const companyId = () => bigint("company_id", { mode: "number", unsigned: true }).notNull();
const ref = (name: string) => bigint(name, { mode: "number", unsigned: true });
const money = (name: string) => decimal(name, { precision: 14, scale: 2 });
const timestamps = {
  created_at: datetime("created_at", { mode: "date", fsp: 3 })
    .notNull()
    .default(sql`CURRENT_TIMESTAMP(3)`),
  updated_at: datetime("updated_at", { mode: "date", fsp: 3 })
    .notNull()
    .default(sql`CURRENT_TIMESTAMP(3)`),
  deleted_at: datetime("deleted_at", { mode: "date", fsp: 3 }),
};
// 1 while the record is live, NULL once soft-deleted: unique keys that include it ignore
// deleted records, because a unique index admits any number of NULLs.
const live = () => tinyint("live").default(1);

// The client's own id for a record (docs/writes-and-retries.md), unique among the company's live records.
const externalId = () => exactText("external_id", 255);

// The indexes a list's filters count and page with, each led by company_id. An equality filter's is
// (company_id, filter, deleted_at): the count of its live records reads the index alone, and its
// page comes out of it in id order (InnoDB appends the primary key to every secondary index).
// updated_since's is (company_id, updated_at, deleted_at): its count reads the index alone.
type Columns = Record<"company_id" | "deleted_at" | "updated_at", AnyMySqlColumn>;
const listIndex = (name: string, t: Columns, filter: AnyMySqlColumn) =>
  index(name).on(t.company_id, filter, t.deleted_at);
const updatedIndex = (name: string, t: Columns) =>
  index(name).on(t.company_id, t.updated_at, t.deleted_at);

// The indexes a sorted list pages with: (company_id, live, key), and InnoDB appends the primary
// key, so a page of live records sorted by the key (id breaking ties) is one range read from where
// the cursor points, however deep (docs/api.md). One for every field a list sorts by (a range of
// the key finds its records there too); e2e/list-indexes.test.ts checks each.
const sortIndex = (
  name: string,
  t: { company_id: AnyMySqlColumn; live: AnyMySqlColumn },
  key: AnyMySqlColumn,
) => index(name).on(t.company_id, t.live, key);

type CompanyKeys = { id: ReturnType<typeof id>; company_id: ReturnType<typeof companyId> };
/** A table's own keys and indexes, given its columns. */
type TableKeys<N extends string, C extends Record<string, MySqlColumnBuilderBase>> = (
  t: BuildColumns<N, CompanyKeys & C, "mysql">,
) => MySqlTableExtraConfigValue[];

/**
 * A table of company data: `id` (unique in the table, so a record is found by it alone) and
 * `company_id` first, keyed by (company_id, id), then the table's own columns and keys.
 */
function companyTable<N extends string, C extends Record<string, MySqlColumnBuilderBase>>(
  name: N,
  columns: C,
  keys: TableKeys<N, C> = () => [],
) {
  return mysqlTable(name, { id: id(), company_id: companyId(), ...columns }, (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    uniqueIndex(`${name}_id`).on(t.id),
    ...keys(t),
  ]);
}

/** What every resource with statuses stores after its own columns. */
const recordColumns = () => ({
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  // The company's own fields' values, one member per field that has one (NULL: none);
  // custom_field_values indexes them (resources/custom-fields.ts).
  custom_fields: jsonObject("custom_fields"),
  live: live(),
  ...timestamps,
});

/**
 * A company table of a resource with statuses: its own columns, then `status`, `external_id`
 * (unique among live records), `live` and the timestamps, with the list indexes every such
 * resource has (status, updated_since).
 */
function recordTable<N extends string, C extends Record<string, MySqlColumnBuilderBase>>(
  name: N,
  columns: C,
  keys: TableKeys<N, C & ReturnType<typeof recordColumns>> = () => [],
) {
  return companyTable(name, { ...columns, ...recordColumns() }, (t) => [
    ...keys(t),
    uniqueIndex(`${name}_external_id`).on(t.company_id, t.external_id, t.live),
    listIndex(`${name}_status`, t, t.status),
    updatedIndex(`${name}_updated`, t),
    sortIndex(`${name}_by_created`, t, t.created_at),
    sortIndex(`${name}_by_updated`, t, t.updated_at),
    sortIndex(`${name}_by_status`, t, t.status),
    sortIndex(`${name}_by_external_id`, t, t.external_id),
  ]);
}

export const companies = mysqlTable("companies", {
  id: id().primaryKey(),
  name: varchar("name", { length: 200 }).notNull(),
  plan: varchar("plan", { length: 16 }).notNull(),
  addons: json("addons").$type<string[]>().notNull(),
  /** The company's own limits of the plans' quotas, by resource (`{"projects": 10}`); null: none. */
  quota_overrides: json("quota_overrides").$type<Record<string, number>>(),
  rate_limit: int("rate_limit"),
  created_at: timestamps.created_at,
});

export const apiTokens = companyTable(
  "api_tokens",
  {
    token_hash: char("token_hash", { length: 64 }).notNull(),
    name: varchar("name", { length: 100 }).notNull().default(""),
    // Space-separated; tokens made before scopes existed hold every scope.
    scopes: varchar("scopes", { length: 1000 }).notNull().default("*"),
    created_at: timestamps.created_at,
    expires_at: datetime("expires_at", { mode: "date", fsp: 3 }),
    // Minute precision: each process writes it at most once a minute per token.
    last_used_at: datetime("last_used_at", { mode: "date", fsp: 3 }),
    revoked_at: datetime("revoked_at", { mode: "date", fsp: 3 }),
  },
  // Every process asks each second which tokens were revoked lately, of any company.
  (t) => [
    uniqueIndex("api_tokens_hash").on(t.token_hash),
    index("api_tokens_revoked").on(t.revoked_at),
  ],
);

/**
 * A company's list of names that records point at (trades, equipment categories): seeded for a new
 * company, then managed by it (docs/concepts.md, "Lookups"). Names are stored trimmed and unique
 * among the live ones ignoring case: `name_key` is the name in lower case, computed by the database
 * and compared byte for byte, so accents count (`Électrique` and `Electrique` are two names). A
 * deleted lookup (`live` NULL) holds neither its name nor its external_id.
 */
function lookupTable<N extends string>(name: N) {
  return companyTable(
    name,
    {
      name: varchar("name", { length: 100 }).notNull(),
      name_key: exactText("name_key", 100).generatedAlwaysAs(sql`LOWER(\`name\`)`, {
        mode: "stored",
      }),
      external_id: externalId(),
      live: live(),
      ...timestamps,
    },
    (t) => [
      uniqueIndex(`${name}_name_key`).on(t.company_id, t.name_key, t.live),
      uniqueIndex(`${name}_external_id`).on(t.company_id, t.external_id, t.live),
      sortIndex(`${name}_by_name`, t, t.name),
    ],
  );
}

export const trades = lookupTable("trades");
export const equipmentCategories = lookupTable("equipment_categories");

// A company's own fields of a resource (docs/custom-fields.md): a definition is a row, never a
// column. `key` never changes; `label_key` is the label in lower case, unique per resource.
export const customFields = companyTable(
  "custom_fields",
  {
    resource: varchar("resource", { length: 32 }).notNull(),
    key: exactText("key", 40).notNull(),
    label: varchar("label", { length: 100 }).notNull(),
    label_key: exactText("label_key", 100).notNull(),
    type: varchar("type", { length: 16 }).notNull(),
    required: boolean("required").notNull().default(false),
    unique: boolean("unique").notNull().default(false),
    sensitive: boolean("sensitive").notNull().default(false),
    // JSON: `{"max_length": 255}` for text, `{"choices": [...]}` for select, `{}` otherwise.
    options: mediumtext("options").notNull(),
    description: varchar("description", { length: 1000 }),
    ...{ created_at: timestamps.created_at, updated_at: timestamps.updated_at },
  },
  (t) => [
    uniqueIndex("custom_fields_key").on(t.company_id, t.resource, t.key),
    uniqueIndex("custom_fields_label").on(t.company_id, t.resource, t.label_key),
  ],
);

// The typed index of custom field values, beside the records' own `custom_fields` text: one row per
// record and field that holds a value, in the column of its type (text and choices in value_text,
// numbers, money and booleans in value_number, dates in value_date). Filters, ranges, sorts and
// unique checks read it by (company_id, field_id, value, record_id); every write of a record keeps
// it in the same transaction. A text value is indexed by its first 255 characters. A unique field's
// value of a live record is also in `unique_value` (its key and the hash of the whole value, NULL
// otherwise), which the unique key custom_field_values_unique guards (writes/custom-values.ts).
export const customFieldValues = mysqlTable(
  "custom_field_values",
  {
    company_id: companyId(),
    field_id: bigint("field_id", { mode: "number", unsigned: true }).notNull(),
    record_id: bigint("record_id", { mode: "number", unsigned: true }).notNull(),
    value_text: exactText("value_text", 255),
    value_number: decimal("value_number", { precision: 24, scale: 6 }),
    value_date: date("value_date", { mode: "string" }),
    unique_value: exactText("unique_value", 105),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.field_id, t.record_id] }),
    uniqueIndex("custom_field_values_unique").on(t.company_id, t.field_id, t.unique_value),
    index("custom_field_values_text").on(t.company_id, t.field_id, t.value_text, t.record_id),
    index("custom_field_values_number").on(t.company_id, t.field_id, t.value_number, t.record_id),
    index("custom_field_values_date").on(t.company_id, t.field_id, t.value_date, t.record_id),
  ],
);

export const clients = recordTable(
  "clients",
  {
    name: varchar("name", { length: 200 }).notNull(),
    email: varchar("email", { length: 254 }),
    phone: varchar("phone", { length: 40 }),
    tax_id: varchar("tax_id", { length: 32 }),
    billing_address: varchar("billing_address", { length: 500 }),
  },
  (t) => [
    sortIndex("clients_by_name", t, t.name),
    sortIndex("clients_by_phone", t, t.phone),
    sortIndex("clients_by_email", t, t.email),
    sortIndex("clients_by_tax_id", t, t.tax_id),
    listIndex("clients_email", t, t.email),
    listIndex("clients_tax_id", t, t.tax_id),
  ],
);

export const estimates = recordTable(
  "estimates",
  {
    title: varchar("title", { length: 200 }).notNull(),
    client_id: ref("client_id"),
    amount: money("amount").notNull(),
    currency: char("currency", { length: 3 }).notNull(),
    valid_until: date("valid_until", { mode: "string" }),
  },
  (t) => [
    listIndex("estimates_client", t, t.client_id),
    sortIndex("estimates_by_title", t, t.title),
    sortIndex("estimates_by_valid_until", t, t.valid_until),
    sortIndex("estimates_by_client", t, t.client_id),
    sortIndex("estimates_by_amount", t, t.amount),
    sortIndex("estimates_by_currency", t, t.currency),
  ],
);

export const projects = recordTable(
  "projects",
  {
    name: varchar("name", { length: 200 }).notNull(),
    code: exactText("code", 32),
    client_id: ref("client_id"),
    billing_mode: varchar("billing_mode", { length: 24 }).notNull(),
    budget_estimate_id: ref("budget_estimate_id"),
    budget_amount: money("budget_amount"),
    currency: char("currency", { length: 3 }).notNull(),
    start_date: date("start_date", { mode: "string" }),
    end_date: date("end_date", { mode: "string" }),
    address: varchar("address", { length: 500 }),
  },
  (t) => [
    uniqueIndex("projects_code").on(t.company_id, t.code, t.live),
    listIndex("projects_client", t, t.client_id),
    listIndex("projects_budget_estimate", t, t.budget_estimate_id),
    sortIndex("projects_by_name", t, t.name),
    sortIndex("projects_by_start_date", t, t.start_date),
    sortIndex("projects_by_end_date", t, t.end_date),
    sortIndex("projects_by_code", t, t.code),
    sortIndex("projects_by_client", t, t.client_id),
    sortIndex("projects_by_billing_mode", t, t.billing_mode),
    sortIndex("projects_by_budget_estimate", t, t.budget_estimate_id),
    sortIndex("projects_by_budget_amount", t, t.budget_amount),
    sortIndex("projects_by_currency", t, t.currency),
  ],
);

export const workers = recordTable(
  "workers",
  {
    name: varchar("name", { length: 200 }).notNull(),
    email: varchar("email", { length: 254 }),
    phone: varchar("phone", { length: 40 }),
    trade_id: ref("trade_id"),
    hourly_rate: money("hourly_rate"),
    hired_on: date("hired_on", { mode: "string" }),
  },
  (t) => [
    listIndex("workers_trade", t, t.trade_id),
    listIndex("workers_email", t, t.email),
    sortIndex("workers_by_name", t, t.name),
    sortIndex("workers_by_hired_on", t, t.hired_on),
    sortIndex("workers_by_phone", t, t.phone),
    sortIndex("workers_by_email", t, t.email),
    sortIndex("workers_by_trade", t, t.trade_id),
    sortIndex("workers_by_hourly_rate", t, t.hourly_rate),
    // A report of pay by trade (docs/api.md, "Reports") reads this index alone, never the rows.
    index("workers_rates_by_trade").on(t.company_id, t.live, t.trade_id, t.hourly_rate),
  ],
);

export const subcontractors = recordTable(
  "subcontractors",
  {
    name: varchar("name", { length: 200 }).notNull(),
    trade_id: ref("trade_id"),
    email: varchar("email", { length: 254 }),
    phone: varchar("phone", { length: 40 }),
    tax_id: varchar("tax_id", { length: 32 }),
    insurance_expires_on: date("insurance_expires_on", { mode: "string" }),
  },
  (t) => [
    listIndex("subcontractors_trade", t, t.trade_id),
    listIndex("subcontractors_email", t, t.email),
    listIndex("subcontractors_tax_id", t, t.tax_id),
    sortIndex("subcontractors_by_name", t, t.name),
    sortIndex("subcontractors_by_insurance", t, t.insurance_expires_on),
    sortIndex("subcontractors_by_phone", t, t.phone),
    sortIndex("subcontractors_by_email", t, t.email),
    sortIndex("subcontractors_by_tax_id", t, t.tax_id),
    sortIndex("subcontractors_by_trade", t, t.trade_id),
  ],
);

export const equipment = recordTable(
  "equipment",
  {
    name: varchar("name", { length: 200 }).notNull(),
    category_id: ref("category_id"),
    serial_number: exactText("serial_number", 64),
    daily_rate: money("daily_rate"),
  },
  (t) => [
    uniqueIndex("equipment_serial").on(t.company_id, t.serial_number, t.live),
    listIndex("equipment_category", t, t.category_id),
    sortIndex("equipment_by_name", t, t.name),
    sortIndex("equipment_by_serial", t, t.serial_number),
    sortIndex("equipment_by_category", t, t.category_id),
    sortIndex("equipment_by_daily_rate", t, t.daily_rate),
  ],
);

export const rentals = companyTable(
  "equipment_rentals",
  {
    equipment_id: ref("equipment_id").notNull(),
    project_id: ref("project_id").notNull(),
    start_date: date("start_date", { mode: "string" }).notNull(),
    end_date: date("end_date", { mode: "string" }),
    daily_rate: money("daily_rate"),
    billed: boolean("billed").notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index("equipment_rentals_equipment").on(t.company_id, t.equipment_id),
    index("equipment_rentals_project").on(t.company_id, t.project_id),
  ],
);

const clientKey = (name: string) => varbinary(name, { length: 255 }).notNull();

/**
 * What a client's keys are bound to, one row per (company, key), kept for the replay window and
 * purged by `created_at`: the fingerprint of what the key was used for and the status answered,
 * then the table's own columns. The key is binary so keys compare byte for byte (no case
 * folding, no trailing-space padding).
 */
function keyBindings<
  N extends string,
  K extends string,
  C extends Record<string, MySqlColumnBuilderBase>,
>(name: N, key: K, columns: C) {
  const keyColumn = { [key]: clientKey(key) } as Record<K, ReturnType<typeof clientKey>>;
  return mysqlTable(
    name,
    {
      company_id: companyId(),
      ...keyColumn,
      fingerprint: char("fingerprint", { length: 64 }).notNull(),
      status_code: int("status_code").notNull(),
      ...columns,
      created_at: timestamps.created_at,
    },
    (t) => [
      primaryKey({ columns: [t.company_id, t[key]] }),
      index(`${name}_created`).on(t.created_at),
    ],
  );
}

// The outcome of a real write that succeeded, committed in the same transaction as the write
// itself, so neither exists without the other. The body is text, not JSON, so a replay sends the
// very bytes of the original.
export const idempotencyKeys = keyBindings("idempotency_keys", "idempotency_key", {
  response_headers: text("response_headers").notNull(),
  response_body: mediumtext("response_body").notNull(),
});

export const usageCounters = mysqlTable(
  "usage_counters",
  {
    company_id: companyId(),
    period: char("period", { length: 7 }).notNull(),
    requests: bigint("requests", { mode: "number", unsigned: true }).notNull().default(0),
    dry_run_requests: bigint("dry_run_requests", { mode: "number", unsigned: true })
      .notNull()
      .default(0),
    replays: bigint("replays", { mode: "number", unsigned: true }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.period] })],
);

// Requests each server process admitted per company in one rate-limit window, written by that
// process about once a second and summed by the others: no row is shared, so no request waits
// on another process's write and cluster nodes never conflict over it.
export const rateCounts = mysqlTable(
  "rate_counts",
  {
    company_id: companyId(),
    window_start: bigint("window_start", { mode: "number", unsigned: true }).notNull(),
    process_id: char("process_id", { length: 36 }).notNull(),
    hits: int("hits", { unsigned: true }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.window_start, t.process_id] }),
    index("rate_counts_window").on(t.window_start),
  ],
);

// A company's counters, one row each, moved in the same transaction as the writes they count:
// `events` is the last event number the company used (a write takes the next ones as its last
// statement, so numbers follow commit order with no gap), `events_purged` the last number
// retention deleted, and each resource's name counts its live records (plan quotas, list
// totals). Two servers (or cluster nodes) moving one counter write the same row: one waits for
// the other, or on a cluster certification lets one commit and the other is retried.
export const companyCounters = mysqlTable(
  "company_counters",
  {
    company_id: companyId(),
    name: varchar("name", { length: 32 }).notNull(),
    value: bigint("value", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.name] })],
);

// Where the ids of each record table come from: a process reserves a block of ids with one
// autocommitted UPDATE of its row and hands them out itself, so a write knows its records' ids
// before it sends them (one round trip for a whole transaction; a batch's multi-row INSERT with
// ids known on MySQL 8, MariaDB and Galera alike). Not company data: ids are unique per table.
export const idBlocks = mysqlTable("id_blocks", {
  table_name: varchar("table_name", { length: 64 }).notNull().primaryKey(),
  next_id: bigint("next_id", { mode: "number", unsigned: true }).notNull(),
});

// The item keys of batches (docs/writes-and-retries.md): each item written under a key binds it to the item's
// fingerprint and its result, in the batch's own transaction, for 24 h; a later batch of any
// composition finds the key bound and answers the stored result instead of writing again.
export const batchItemKeys = keyBindings("batch_item_keys", "item_key", {
  record_id: bigint("record_id", { mode: "number", unsigned: true }).notNull(),
  action: varchar("action", { length: 16 }).notNull(),
});

// The change feed and audit trail: one row per committed change of a record, written in the
// change's own transaction (an outbox). The public id (`evt_`, the number in base 36, then random
// characters) is derived on read from the number and the row's `token`: a write sends no more than
// the random part (events/event-ids.ts).
export const events = mysqlTable(
  "events",
  {
    company_id: companyId(),
    seq: bigint("seq", { mode: "number", unsigned: true }).notNull(),
    token: char("token", { length: 16 }).notNull(),
    id: char("id", { length: 30 }).generatedAlwaysAs(
      sql`CONCAT('evt_', LPAD(LOWER(CONV(\`seq\`, 10, 36)), 10, '0'), \`token\`)`,
      { mode: "virtual" },
    ),
    type: varchar("type", { length: 64 }).notNull(),
    resource: varchar("resource", { length: 64 }).notNull(),
    record_id: bigint("record_id", { mode: "number", unsigned: true }).notNull(),
    data: mediumtext("data").notNull(),
    request_id: varchar("request_id", { length: 200 }).notNull(),
    idempotency_key: varbinary("idempotency_key", { length: 255 }),
    created_at: timestamps.created_at,
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.seq] }),
    index("events_record").on(t.company_id, t.resource, t.record_id, t.seq),
  ],
);

// Webhook endpoints (docs/events-and-webhooks.md). `cursor` is the id of the last event turned into deliveries for
// this endpoint; whichever process advances it does so with a compare-and-set on this row, so a
// cluster certifies one of two racing advances and the delivery rows' unique key drops doubles.
export const webhookEndpoints = companyTable("webhook_endpoints", {
  url: varchar("url", { length: 2048 }).notNull(),
  events: text("events").notNull(),
  description: varchar("description", { length: 500 }),
  enabled: boolean("enabled").notNull().default(true),
  secret: varchar("secret", { length: 80 }).notNull(),
  // The secrets rotations replaced, each still signing deliveries beside the newer ones until its
  // own expiry: JSON `[{"secret", "until"}]` (webhooks/secrets.ts); null when none is left.
  previous_secrets: text("previous_secrets"),
  cursor: varchar("cursor", { length: 40 }),
  // The scopes of the token that last made or changed the endpoint, as api_tokens.scopes: it
  // delivers only events of the resources they read (resources/visibility.ts).
  scopes: varchar("scopes", { length: 1000 }).notNull().default("*"),
  // Whether it delivers the sensitive fields those scopes read (docs/tokens.md): set only by a
  // token that holds `sensitive`.
  include_sensitive: boolean("include_sensitive").notNull().default(false),
  ...timestamps,
});

// One event to send to one endpoint, until it is delivered or given up. A process sends it only
// while it holds the lease (lease_owner, lease_until), taken with a conditional UPDATE of the row:
// a process that dies lets its lease run out, and another one sends the delivery again.
export const webhookDeliveries = companyTable(
  "webhook_deliveries",
  {
    endpoint_id: bigint("endpoint_id", { mode: "number", unsigned: true }).notNull(),
    event_id: char("event_id", { length: 30 }).notNull(),
    event_type: varchar("event_type", { length: 64 }).notNull(),
    payload: mediumtext("payload").notNull(),
    status: varchar("status", { length: 16 }).notNull(),
    attempts: int("attempts", { unsigned: true }).notNull().default(0),
    next_attempt_at: datetime("next_attempt_at", { mode: "date", fsp: 3 }).notNull(),
    lease_owner: char("lease_owner", { length: 36 }),
    lease_until: datetime("lease_until", { mode: "date", fsp: 3 }),
    delivered_at: datetime("delivered_at", { mode: "date", fsp: 3 }),
    created_at: timestamps.created_at,
    updated_at: timestamps.updated_at,
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.company_id, t.endpoint_id, t.event_id),
    // Which endpoints have due deliveries, and the oldest due ones of one endpoint (dispatcher.ts).
    index("webhook_deliveries_due").on(t.status, t.company_id, t.endpoint_id, t.next_attempt_at),
  ],
);

// Every attempt to send a delivery: what the endpoint answered and how long it took.
export const webhookAttempts = companyTable(
  "webhook_attempts",
  {
    delivery_id: bigint("delivery_id", { mode: "number", unsigned: true }).notNull(),
    status_code: int("status_code"),
    error: varchar("error", { length: 500 }),
    duration_ms: int("duration_ms", { unsigned: true }).notNull(),
    attempted_at: datetime("attempted_at", { mode: "date", fsp: 3 }).notNull(),
  },
  (t) => [index("webhook_attempts_delivery").on(t.company_id, t.delivery_id)],
);

// A file on a record (docs/attachments.md): its metadata here, its bytes in the attachments store
// under `object_key`. A row exists only once its bytes are stored whole and checked; the record's
// soft delete hides its attachments (reads join the record live), the purge of the record removes
// them and their objects.
export const attachments = companyTable(
  "attachments",
  {
    resource: varchar("resource", { length: 32 }).notNull(),
    record_id: ref("record_id").notNull(),
    filename: varchar("filename", { length: 255 }).notNull(),
    content_type: varchar("content_type", { length: 255 }).notNull(),
    size: bigint("size", { mode: "number", unsigned: true }).notNull(),
    sha256: char("sha256", { length: 64 }).notNull(),
    object_key: varchar("object_key", { length: 255 }).notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [index("attachments_record").on(t.company_id, t.resource, t.record_id)],
);

// Objects in the attachments store that no attachment row owns yet or any more (docs/attachments.md,
// "After a crash"): an upload's key from before its first byte until its row commits, a deleted
// attachment's key from the row's delete until its object is removed. A server that dies between
// the two leaves its key here, and the sweep removes the object (and a directory store's temporary
// file) once `since` is older than any upload can be.
export const looseObjects = mysqlTable(
  "loose_objects",
  {
    object_key: varchar("object_key", { length: 255 }).primaryKey(),
    since: datetime("since", { mode: "date", fsp: 3 }).notNull().default(sql`CURRENT_TIMESTAMP(3)`),
  },
  (t) => [index("loose_objects_since").on(t.since)],
);
