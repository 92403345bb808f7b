// Drizzle tables. Every table holding company data leads its keys with company_id so the
// data can later be sharded by company; JS keys equal the API's field names.
import { sql } from "drizzle-orm";
import {
  bigint, boolean, char, date, datetime, decimal, index, int, json, mysqlTable, primaryKey,
  mediumtext, text, tinyint, uniqueIndex, varbinary, varchar,
} from "drizzle-orm/mysql-core";

const id = () => bigint("id", { mode: "number", unsigned: true }).autoincrement().notNull();
const companyId = () => bigint("company_id", { mode: "number", unsigned: true }).notNull();
const ref = (name: string) => bigint(name, { mode: "number", unsigned: true });
const money = (name: string) => decimal(name, { precision: 14, scale: 2 });
const timestamps = {
  created_at: datetime("created_at", { mode: "date", fsp: 3 }).notNull().default(sql`CURRENT_TIMESTAMP(3)`),
  updated_at: datetime("updated_at", { mode: "date", fsp: 3 }).notNull().default(sql`CURRENT_TIMESTAMP(3)`),
  deleted_at: datetime("deleted_at", { mode: "date", fsp: 3 }),
};
// 1 while the record is live, NULL once soft-deleted: unique keys that include it ignore
// deleted records, because a unique index admits any number of NULLs.
const live = () => tinyint("live").default(1);
// The client's own id for a record (CONTRACT 11), unique among the company's live records.
const externalId = () => varchar("external_id", { length: 255 });

export const companies = mysqlTable("companies", {
  id: id().primaryKey(),
  name: varchar("name", { length: 200 }).notNull(),
  plan: varchar("plan", { length: 16 }).notNull(),
  addons: json("addons").$type<string[]>().notNull(),
  max_projects: int("max_projects"),
  max_workers: int("max_workers"),
  rate_limit: int("rate_limit"),
  created_at: timestamps.created_at,
});

export const apiTokens = mysqlTable("api_tokens", {
  id: id(),
  company_id: companyId(),
  token_hash: char("token_hash", { length: 64 }).notNull(),
  created_at: timestamps.created_at,
  revoked_at: datetime("revoked_at", { mode: "date", fsp: 3 }),
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("api_tokens_id").on(t.id),
  uniqueIndex("api_tokens_hash").on(t.token_hash),
]);

function lookupTable(name: string) {
  return mysqlTable(name, {
    id: id(),
    company_id: companyId(),
    name: varchar("name", { length: 100 }).notNull(),
  }, (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    uniqueIndex(`${name}_id`).on(t.id),
    uniqueIndex(`${name}_name`).on(t.company_id, t.name),
  ]);
}

export const trades = lookupTable("trades");
export const equipmentCategories = lookupTable("equipment_categories");

export const clients = mysqlTable("clients", {
  id: id(),
  company_id: companyId(),
  name: varchar("name", { length: 200 }).notNull(),
  email: varchar("email", { length: 254 }),
  phone: varchar("phone", { length: 40 }),
  tax_id: varchar("tax_id", { length: 32 }),
  billing_address: varchar("billing_address", { length: 500 }),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("clients_id").on(t.id),
  uniqueIndex("clients_external_id").on(t.company_id, t.external_id, t.live),
]);

export const estimates = mysqlTable("estimates", {
  id: id(),
  company_id: companyId(),
  title: varchar("title", { length: 200 }).notNull(),
  client_id: ref("client_id"),
  amount: money("amount").notNull(),
  currency: char("currency", { length: 3 }).notNull(),
  valid_until: date("valid_until", { mode: "string" }),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("estimates_id").on(t.id),
  index("estimates_client").on(t.company_id, t.client_id),
  uniqueIndex("estimates_external_id").on(t.company_id, t.external_id, t.live),
]);

export const projects = mysqlTable("projects", {
  id: id(),
  company_id: companyId(),
  name: varchar("name", { length: 200 }).notNull(),
  code: varchar("code", { length: 32 }),
  client_id: ref("client_id"),
  billing_mode: varchar("billing_mode", { length: 24 }).notNull(),
  budget_estimate_id: ref("budget_estimate_id"),
  budget_amount: money("budget_amount"),
  currency: char("currency", { length: 3 }).notNull(),
  start_date: date("start_date", { mode: "string" }),
  end_date: date("end_date", { mode: "string" }),
  address: varchar("address", { length: 500 }),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("projects_id").on(t.id),
  uniqueIndex("projects_code").on(t.company_id, t.code, t.live),
  index("projects_client").on(t.company_id, t.client_id),
  index("projects_budget_estimate").on(t.company_id, t.budget_estimate_id),
  uniqueIndex("projects_external_id").on(t.company_id, t.external_id, t.live),
]);

export const workers = mysqlTable("workers", {
  id: id(),
  company_id: companyId(),
  name: varchar("name", { length: 200 }).notNull(),
  email: varchar("email", { length: 254 }),
  phone: varchar("phone", { length: 40 }),
  trade_id: ref("trade_id"),
  hourly_rate: money("hourly_rate"),
  hired_on: date("hired_on", { mode: "string" }),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("workers_id").on(t.id),
  index("workers_trade").on(t.company_id, t.trade_id),
  uniqueIndex("workers_external_id").on(t.company_id, t.external_id, t.live),
]);

export const subcontractors = mysqlTable("subcontractors", {
  id: id(),
  company_id: companyId(),
  name: varchar("name", { length: 200 }).notNull(),
  trade_id: ref("trade_id"),
  email: varchar("email", { length: 254 }),
  phone: varchar("phone", { length: 40 }),
  tax_id: varchar("tax_id", { length: 32 }),
  insurance_expires_on: date("insurance_expires_on", { mode: "string" }),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("subcontractors_id").on(t.id),
  index("subcontractors_trade").on(t.company_id, t.trade_id),
  uniqueIndex("subcontractors_external_id").on(t.company_id, t.external_id, t.live),
]);

export const equipment = mysqlTable("equipment", {
  id: id(),
  company_id: companyId(),
  name: varchar("name", { length: 200 }).notNull(),
  category_id: ref("category_id"),
  serial_number: varchar("serial_number", { length: 64 }),
  daily_rate: money("daily_rate"),
  status: varchar("status", { length: 16 }).notNull(),
  external_id: externalId(),
  live: live(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("equipment_id").on(t.id),
  uniqueIndex("equipment_serial").on(t.company_id, t.serial_number, t.live),
  index("equipment_category").on(t.company_id, t.category_id),
  uniqueIndex("equipment_external_id").on(t.company_id, t.external_id, t.live),
]);

export const rentals = mysqlTable("equipment_rentals", {
  id: id(),
  company_id: companyId(),
  equipment_id: ref("equipment_id").notNull(),
  project_id: ref("project_id").notNull(),
  start_date: date("start_date", { mode: "string" }).notNull(),
  end_date: date("end_date", { mode: "string" }),
  daily_rate: money("daily_rate"),
  billed: boolean("billed").notNull().default(false),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("equipment_rentals_id").on(t.id),
  index("equipment_rentals_equipment").on(t.company_id, t.equipment_id),
  index("equipment_rentals_project").on(t.company_id, t.project_id),
]);

// One row per (company, key): the outcome of a real write that succeeded, committed in the same
// transaction as the write itself, so neither exists without the other. The key is binary so
// keys compare byte for byte (no case folding, no trailing-space padding); the body is text, not
// JSON, so a replay sends the very bytes of the original.
export const idempotencyKeys = mysqlTable("idempotency_keys", {
  company_id: companyId(),
  idempotency_key: varbinary("idempotency_key", { length: 255 }).notNull(),
  fingerprint: char("fingerprint", { length: 64 }).notNull(),
  status_code: int("status_code").notNull(),
  response_headers: text("response_headers").notNull(),
  response_body: mediumtext("response_body").notNull(),
  created_at: timestamps.created_at,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.idempotency_key] }),
  index("idempotency_keys_created").on(t.created_at),
]);

// Live records counted against a plan quota, changed in the transaction of each create and
// delete: one row per company and resource, so two servers (or cluster nodes) taking the last
// slot write the same row and only one of them commits.
export const quotaUsage = mysqlTable("quota_usage", {
  company_id: companyId(),
  resource: varchar("resource", { length: 16 }).notNull(),
  used: int("used", { unsigned: true }).notNull().default(0),
}, (t) => [primaryKey({ columns: [t.company_id, t.resource] })]);

export const usageCounters = mysqlTable("usage_counters", {
  company_id: companyId(),
  period: char("period", { length: 7 }).notNull(),
  requests: bigint("requests", { mode: "number", unsigned: true }).notNull().default(0),
  dry_run_requests: bigint("dry_run_requests", { mode: "number", unsigned: true }).notNull().default(0),
  replays: bigint("replays", { mode: "number", unsigned: true }).notNull().default(0),
}, (t) => [primaryKey({ columns: [t.company_id, t.period] })]);

// Requests each server process admitted per company in one rate-limit window, written by that
// process about once a second and summed by the others: no row is shared, so no request waits
// on another process's write and cluster nodes never conflict over it.
export const rateCounts = mysqlTable("rate_counts", {
  company_id: companyId(),
  window_start: bigint("window_start", { mode: "number", unsigned: true }).notNull(),
  process_id: char("process_id", { length: 36 }).notNull(),
  hits: int("hits", { unsigned: true }).notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.company_id, t.window_start, t.process_id] }),
  index("rate_counts_window").on(t.window_start),
]);

// The last event sequence number each company used. Every write takes its numbers here at the
// end of its transaction: the row lock (on a cluster, a certified conflict) orders the writes
// of a company, so event numbers follow commit order without gaps. `purged_through` is the last
// number retention deleted: a cursor before it is expired.
export const eventSequences = mysqlTable("event_sequences", {
  company_id: companyId().primaryKey(),
  last_seq: bigint("last_seq", { mode: "number", unsigned: true }).notNull(),
  purged_through: bigint("purged_through", { mode: "number", unsigned: true }).notNull().default(0),
});

// The change feed and audit trail: one row per committed change of a record, written in the
// change's own transaction (an outbox).
export const events = mysqlTable("events", {
  company_id: companyId(),
  seq: bigint("seq", { mode: "number", unsigned: true }).notNull(),
  id: char("id", { length: 30 }).notNull(),
  type: varchar("type", { length: 64 }).notNull(),
  resource: varchar("resource", { length: 64 }).notNull(),
  record_id: bigint("record_id", { mode: "number", unsigned: true }).notNull(),
  data: mediumtext("data").notNull(),
  request_id: varchar("request_id", { length: 200 }).notNull(),
  idempotency_key: varbinary("idempotency_key", { length: 255 }),
  created_at: timestamps.created_at,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.seq] }),
  index("events_record").on(t.company_id, t.resource, t.record_id, t.seq),
  index("events_created").on(t.created_at),
]);

// Webhook endpoints (CONTRACT 13). `cursor` is the id of the last event turned into deliveries for
// this endpoint; whichever process advances it does so with a compare-and-set on this row, so a
// cluster certifies one of two racing advances and the delivery rows' unique key drops doubles.
export const webhookEndpoints = mysqlTable("webhook_endpoints", {
  id: id(),
  company_id: companyId(),
  url: varchar("url", { length: 2048 }).notNull(),
  events: text("events").notNull(),
  description: varchar("description", { length: 500 }),
  enabled: boolean("enabled").notNull().default(true),
  secret: varchar("secret", { length: 80 }).notNull(),
  cursor: varchar("cursor", { length: 40 }),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("webhook_endpoints_id").on(t.id),
]);

// One event to send to one endpoint, until it is delivered or given up. A process sends it only
// while it holds the lease (lease_owner, lease_until), taken with a conditional UPDATE of the row:
// a process that dies lets its lease run out, and another one sends the delivery again.
export const webhookDeliveries = mysqlTable("webhook_deliveries", {
  id: id(),
  company_id: companyId(),
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
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("webhook_deliveries_id").on(t.id),
  uniqueIndex("webhook_deliveries_event").on(t.company_id, t.endpoint_id, t.event_id),
  index("webhook_deliveries_due").on(t.status, t.next_attempt_at),
]);

// Every attempt to send a delivery: what the endpoint answered and how long it took.
export const webhookAttempts = mysqlTable("webhook_attempts", {
  id: id(),
  company_id: companyId(),
  delivery_id: bigint("delivery_id", { mode: "number", unsigned: true }).notNull(),
  status_code: int("status_code"),
  error: varchar("error", { length: 500 }),
  duration_ms: int("duration_ms", { unsigned: true }).notNull(),
  attempted_at: datetime("attempted_at", { mode: "date", fsp: 3 }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.company_id, t.id] }),
  uniqueIndex("webhook_attempts_id").on(t.id),
  index("webhook_attempts_delivery").on(t.company_id, t.delivery_id),
]);
