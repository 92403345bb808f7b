// The writes of a company's custom field definitions (docs/custom-fields.md): create (per-plan limit
// per resource), update (checked against the values stored: 409 custom_field_conflict with how many
// records and some ids, the dry-run the same) and delete (its values cleared, counted). Each runs in
// the write's transaction with its event `custom_field.created|updated|deleted`; a dry-run changes
// nothing.
import { CUSTOM_FIELDS_PER_RESOURCE } from "../auth/plans.ts";
import type { Company } from "../auth/company.ts";
import { databaseErrorKind, duplicateKeyName } from "../db/errors.ts";
import { UNIQUE_VALUE_SQL } from "./custom-values.ts";
import { runStatement, selectRows } from "../db/sql.ts";
import type { WriteTransaction } from "../db/write-transaction.ts";
import { and, eq, getTableName, sql } from "drizzle-orm";
import { customFields } from "../db/schema.ts";
import {
  customFieldConflict,
  customFieldTypeLocked,
  notFound,
  quotaExceeded,
  uniqueViolation,
  validationFailed,
} from "../refusals/catalogue.ts";
import type { FieldError } from "../refusals/refusal.ts";
import {
  CUSTOM_FIELD_TYPES,
  type CustomField,
  type CustomFieldOptions,
  findCustomField,
  forgetCustomFields,
  indexColumnOf,
  INDEXED_TEXT_LENGTH,
  KEY_PATTERN,
  TEXT_MAX_LENGTH,
} from "../resources/custom-fields.ts";
import type { StoredRecord } from "../resources/definition.ts";
import { RESOURCES } from "../resources/registry.ts";
import { characterCount } from "../resources/validation.ts";
import { checkIfMatch } from "./preconditions.ts";
import { WritePlan } from "./plan.ts";

const CUSTOM_FIELDS = "custom-fields";
const RESOURCE_NAMES = RESOURCES.map((def) => def.name);
const WRITABLE = ["label", "required", "unique", "sensitive", "options", "description"];
const fail = (field: string, code: string, message: string): FieldError => ({
  field,
  code,
  message,
});

type Body = Record<string, unknown>;

function membersOf(body: unknown): Body {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw validationFailed([
      fail("body", "invalid_type", 'The body must be a JSON object, e.g. {"key": "union_no", …}.'),
    ]);
  return body as Body;
}

/** The options a type takes, checked: text's max_length, select's choices. */
function checkOptions(type: string, options: unknown, errors: FieldError[]): CustomFieldOptions {
  if (options === undefined || options === null) {
    if (type === "select")
      errors.push(fail("options.choices", "required", "A select field needs options.choices."));
    return {};
  }
  if (typeof options !== "object" || Array.isArray(options)) {
    errors.push(fail("options", "invalid_type", "options must be an object."));
    return {};
  }
  const given = options as Body;
  const allowed = type === "text" ? ["max_length"] : type === "select" ? ["choices"] : [];
  for (const name of Object.keys(given))
    if (!allowed.includes(name))
      errors.push(
        fail(
          `options.${name}`,
          "unknown_field",
          `A ${type} field takes ${allowed.length ? `only options.${allowed.join(", ")}` : "no options"}.`,
        ),
      );
  if (type === "text" && given.max_length !== undefined) {
    const max = given.max_length;
    if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > TEXT_MAX_LENGTH)
      errors.push(
        fail(
          "options.max_length",
          "invalid_type",
          `options.max_length must be 1-${TEXT_MAX_LENGTH}.`,
        ),
      );
    else return { max_length: max };
  }
  if (type === "select") {
    const choices = given.choices;
    const valid =
      Array.isArray(choices) &&
      choices.length >= 1 &&
      choices.length <= 500 &&
      choices.every(
        (choice) =>
          typeof choice === "string" &&
          characterCount(choice) >= 1 &&
          characterCount(choice) <= 100,
      ) &&
      new Set(choices).size === choices.length;
    if (!valid)
      errors.push(
        fail(
          "options.choices",
          "invalid_choices",
          "options.choices must be 1-500 distinct texts of 1-100 characters each.",
        ),
      );
    else return { choices: choices as string[] };
  }
  return {};
}

/** The writable members of a body (create or update), checked; `type` is the field's. */
function checkMembers(body: Body, type: string, errors: FieldError[]): Body {
  const values: Body = {};
  if (body.label !== undefined) {
    const label = body.label;
    if (typeof label !== "string" || label.trim() === "" || characterCount(label) > 100)
      errors.push(fail("label", "invalid_type", "label must be text of 1-100 characters."));
    else values.label = label;
  }
  for (const flag of ["required", "unique", "sensitive"])
    if (body[flag] !== undefined) {
      if (typeof body[flag] !== "boolean")
        errors.push(fail(flag, "invalid_type", `${flag} must be true or false.`));
      else values[flag] = body[flag];
    }
  if (values.unique === true && type === "boolean")
    errors.push(fail("unique", "invalid_type", "A boolean field cannot be unique."));
  if (body.options !== undefined) values.options = checkOptions(type, body.options, errors);
  if (body.description !== undefined) {
    const text = body.description;
    if (text !== null && (typeof text !== "string" || characterCount(text) > 1000))
      errors.push(
        fail(
          "description",
          "invalid_type",
          "description must be text of at most 1000 characters, or null.",
        ),
      );
    else values.description = text;
  }
  return values;
}

/** A create's body, checked all at once. */
function checkCreate(body: Body): Body {
  const errors: FieldError[] = [];
  for (const name of Object.keys(body))
    if (!["resource", "key", "type", ...WRITABLE].includes(name))
      errors.push(fail(name, "unknown_field", `${name} is not a member of a custom field.`));
  if (!RESOURCE_NAMES.includes(body.resource as string))
    errors.push(
      fail("resource", "invalid_enum", `resource must be one of ${RESOURCE_NAMES.join(", ")}.`),
    );
  if (typeof body.key !== "string" || !KEY_PATTERN.test(body.key))
    errors.push(
      fail(
        "key",
        "invalid_key",
        "key must be 1-40 lower-case letters, digits and _, starting with a letter, e.g. union_no.",
      ),
    );
  const type = body.type;
  if (!CUSTOM_FIELD_TYPES.includes(type as never))
    errors.push(
      fail("type", "invalid_enum", `type must be one of ${CUSTOM_FIELD_TYPES.join(", ")}.`),
    );
  if (body.label === undefined) errors.push(fail("label", "required", "label is required."));
  const values = checkMembers(body, String(type), errors);
  if (body.options === undefined && type === "select") checkOptions("select", undefined, errors);
  if (errors.length > 0) throw validationFailed(errors);
  return {
    resource: body.resource,
    key: body.key,
    type,
    required: false,
    unique: false,
    sensitive: false,
    options: {},
    description: null,
    ...values,
  };
}

/** A label or key another field of the resource has: 409 unique_violation naming it. */
async function checkTaken(
  tx: WriteTransaction,
  companyId: number,
  values: Body,
  self?: number,
): Promise<void> {
  const rows = await selectRows<{ id: number; key: string; label_key: string }>(
    tx.db,
    sql`SELECT id, \`key\`, label_key FROM custom_fields WHERE company_id = ${companyId}
      AND resource = ${values.resource} AND (\`key\` = ${values.key ?? ""}
      OR label_key = ${String(values.label ?? "").toLowerCase()}) FOR UPDATE`,
  );
  for (const row of rows) {
    if (Number(row.id) === self) continue;
    const field = row.key === values.key ? "key" : "label";
    throw uniqueViolation(field, values[field], `custom field ${row.id}`, CUSTOM_FIELDS);
  }
}

/** The values of the records a rule counts: how many break it, and the first ids. */
async function breaking(tx: WriteTransaction, _companyId: number, query: ReturnType<typeof sql>) {
  const rows = await selectRows<{ id: number; total: number }>(tx.db, query);
  return { count: Number(rows[0]?.total ?? 0), ids: rows.map((row) => Number(row.id)) };
}

const tableOf = (resource: string): string =>
  `\`${getTableName(RESOURCES.find((def) => def.name === resource)!.table)}\``;

/** 409 custom_field_conflict when the values stored would break the changed definition. */
async function checkStoredValues(
  tx: WriteTransaction,
  companyId: number,
  stored: CustomField,
  next: CustomField,
): Promise<void> {
  const table = sql.raw(tableOf(stored.resource));
  const live = sql`r.company_id = ${companyId} AND r.deleted_at IS NULL`;
  const heldValue = sql.raw(`v.${indexColumnOf(stored.type)}`);
  const held = sql`FROM ${table} r JOIN custom_field_values v ON v.company_id = r.company_id
    AND v.record_id = r.id AND v.field_id = ${stored.id} WHERE ${live}`;
  const counted = (rest: ReturnType<typeof sql>) =>
    sql`SELECT r.id, COUNT(*) OVER () AS total ${rest} ORDER BY r.id LIMIT 10`;
  if (next.required && !stored.required) {
    const found = await breaking(
      tx,
      companyId,
      counted(sql`FROM ${table} r WHERE ${live} AND NOT EXISTS (SELECT 1 FROM custom_field_values v
        WHERE v.company_id = r.company_id AND v.field_id = ${stored.id} AND v.record_id = r.id)`),
    );
    if (found.count > 0) throw customFieldConflict(stored.key, "required", found.count, found.ids);
  }
  if (next.unique && !stored.unique) {
    const found = await breaking(
      tx,
      companyId,
      counted(sql`${held} AND EXISTS (SELECT 1 FROM custom_field_values w JOIN ${table} o
        ON o.company_id = w.company_id AND o.id = w.record_id AND o.deleted_at IS NULL
        WHERE w.company_id = v.company_id AND w.field_id = v.field_id AND w.record_id <> v.record_id
        AND w.${sql.raw(indexColumnOf(stored.type))} = ${heldValue})`),
    );
    if (found.count > 0) throw customFieldConflict(stored.key, "unique", found.count, found.ids);
  }
  const dropped = (stored.options.choices ?? []).filter(
    (choice) => !(next.options.choices ?? []).includes(choice),
  );
  if (stored.type === "select" && dropped.length > 0) {
    const found = await breaking(
      tx,
      companyId,
      counted(sql`${held} AND v.value_text IN ${dropped}`),
    );
    if (found.count > 0)
      throw customFieldConflict(stored.key, "its choices", found.count, found.ids);
  }
  const max = next.options.max_length ?? 255;
  if (stored.type === "text" && max < (stored.options.max_length ?? 255)) {
    const over =
      max >= INDEXED_TEXT_LENGTH
        ? sql`JSON_UNQUOTE(JSON_EXTRACT(r.custom_fields, ${`$.${stored.key}`}))`
        : sql`v.value_text`;
    const found = await breaking(
      tx,
      companyId,
      counted(sql`${held} AND CHAR_LENGTH(${over}) > ${max}`),
    );
    if (found.count > 0)
      throw customFieldConflict(stored.key, `max_length ${max}`, found.count, found.ids);
  }
}

const planOf = (
  action: "created" | "updated" | "deleted",
  record: CustomField,
  changes?: object,
) => {
  const plan = new WritePlan();
  plan.changes.push({
    resource: CUSTOM_FIELDS,
    action,
    record: record as unknown as StoredRecord,
    ...(changes ? { changes: changes as never } : {}),
  });
  return plan;
};

export async function createCustomField(
  tx: WriteTransaction,
  company: Company,
  body: unknown,
  dryRun: boolean,
) {
  const values = checkCreate(membersOf(body));
  await checkTaken(tx, company.id, values);
  const [counted] = await selectRows<{ total: number }>(
    tx.db,
    sql`SELECT COUNT(*) AS total FROM custom_fields WHERE company_id = ${company.id}
      AND resource = ${values.resource} FOR UPDATE`,
  );
  const limit = CUSTOM_FIELDS_PER_RESOURCE[company.plan];
  const used = Number(counted?.total ?? 0);
  if (used >= limit)
    throw quotaExceeded(company.plan, `custom fields of ${values.resource}`, used, limit);
  const next = { ...values, id: 0 } as unknown as CustomField;
  if (values.required) {
    // A new required field: every live record would lack it.
    const probe = { ...next, required: false } as CustomField;
    await checkStoredValues(tx, company.id, { ...probe, id: 0 }, next);
  }
  if (dryRun) return { outcome: { field: null as CustomField | null, dryRun: true } };
  const at = new Date();
  const inserting = tx.db.insert(customFields).values({
    company_id: company.id,
    resource: String(values.resource),
    key: String(values.key),
    label: String(values.label),
    label_key: String(values.label).toLowerCase(),
    type: String(values.type),
    required: values.required === true,
    unique: values.unique === true,
    sensitive: values.sensitive === true,
    options: JSON.stringify(values.options),
    description: (values.description as string | null) ?? null,
    created_at: at,
    updated_at: at,
  });
  // A concurrent create of the same key or label commits first: its unique key refuses this one.
  const [inserted] = await inserting.catch((error: unknown) => {
    if (databaseErrorKind(error) !== "duplicate") throw error;
    const field = duplicateKeyName(error) === "custom_fields_label" ? "label" : "key";
    throw uniqueViolation(field, values[field], "another custom field", CUSTOM_FIELDS);
  });
  const row = { id: inserted.insertId };
  const field = (await findCustomField(tx.db, company.id, Number(row!.id)))!;
  forgetCustomFields(company.id);
  return { outcome: { field, dryRun: false }, plan: planOf("created", field) };
}

/** The stored definition a PATCH or DELETE changes, locked: 404 when there is none, 412 on a stale If-Match. */
async function fieldToChange(
  tx: WriteTransaction,
  company: Company,
  id: number,
  ifMatch: string | null,
): Promise<CustomField> {
  const stored = await findCustomField(tx.db, company.id, id, true);
  if (!stored) throw notFound("custom field", id);
  checkIfMatch(ifMatch, stored as unknown as StoredRecord);
  return stored;
}

export async function updateCustomField(
  tx: WriteTransaction,
  company: Company,
  id: number,
  body: unknown,
  request: { dryRun: boolean; ifMatch: string | null },
) {
  const stored = await fieldToChange(tx, company, id, request.ifMatch);
  const given = membersOf(body);
  const errors: FieldError[] = [];
  for (const name of Object.keys(given))
    if (!WRITABLE.includes(name) && !["type", "key", "resource"].includes(name))
      errors.push(fail(name, "unknown_field", `${name} is not a member of a custom field.`));
    else if ((name === "key" || name === "resource") && given[name] !== stored[name])
      errors.push(fail(name, "read_only", `${name} never changes; create another field instead.`));
  if (given.type !== undefined && given.type !== stored.type)
    throw customFieldTypeLocked(stored.key, stored.type, given.type);
  const values = checkMembers(given, stored.type, errors);
  if (errors.length > 0) throw validationFailed(errors);
  const next = { ...stored, ...values } as CustomField;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const name of WRITABLE) {
    const from = stored[name as keyof CustomField];
    const to = next[name as keyof CustomField];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[name] = { from, to };
  }
  if (changes.label) await checkTaken(tx, company.id, { ...next, key: undefined }, id);
  await checkStoredValues(tx, company.id, stored, next);
  if (request.dryRun || Object.keys(changes).length === 0)
    return { outcome: { field: next, changes, dryRun: request.dryRun } };
  await tx.db
    .update(customFields)
    .set({
      label: next.label,
      label_key: next.label.toLowerCase(),
      required: next.required,
      unique: next.unique,
      sensitive: next.sensitive,
      options: JSON.stringify(next.options),
      description: next.description,
      updated_at: new Date(),
    })
    .where(and(eq(customFields.company_id, company.id), eq(customFields.id, id)));
  if (changes.unique) await setUniqueValues(tx, company.id, stored);
  const field = (await findCustomField(tx.db, company.id, id))!;
  forgetCustomFields(company.id);
  return { outcome: { field, changes, dryRun: false }, plan: planOf("updated", field, changes) };
}

/**
 * A field made unique: its live values enter its unique key (the check before found none shared; a
 * write that took a shared value since meets the key, and the change runs again: its check then
 * refuses it). A field no longer unique: its values leave the key.
 */
async function setUniqueValues(
  tx: WriteTransaction,
  companyId: number,
  stored: CustomField,
): Promise<void> {
  const table = sql.raw(tableOf(stored.resource));
  await runStatement(
    tx.db,
    sql`UPDATE custom_field_values v JOIN custom_fields f ON f.company_id = v.company_id
      AND f.id = v.field_id JOIN ${table} r ON r.company_id = v.company_id AND r.id = v.record_id
      SET v.unique_value = ${sql.raw(UNIQUE_VALUE_SQL)}
      WHERE v.company_id = ${companyId} AND v.field_id = ${stored.id}`,
  );
}

export async function deleteCustomField(
  tx: WriteTransaction,
  company: Company,
  id: number,
  request: { dryRun: boolean; ifMatch: string | null },
) {
  const stored = await fieldToChange(tx, company, id, request.ifMatch);
  const [counted] = await selectRows<{ total: number }>(
    tx.db,
    sql`SELECT COUNT(*) AS total FROM custom_field_values WHERE company_id = ${company.id}
      AND field_id = ${id}`,
  );
  const cleared = Number(counted?.total ?? 0);
  const outcome = { id, cleared, dryRun: request.dryRun };
  if (request.dryRun) return { outcome };
  const table = sql.raw(tableOf(stored.resource));
  await runStatement(
    tx.db,
    sql`UPDATE ${table} r JOIN custom_field_values v ON v.company_id = r.company_id
      AND v.record_id = r.id AND v.field_id = ${id}
      SET r.custom_fields = JSON_REMOVE(r.custom_fields, ${`$.${stored.key}`})
      WHERE r.company_id = ${company.id}`,
  );
  await runStatement(
    tx.db,
    sql`DELETE FROM custom_field_values WHERE company_id = ${company.id} AND field_id = ${id}`,
  );
  await tx.db
    .delete(customFields)
    .where(and(eq(customFields.company_id, company.id), eq(customFields.id, id)));
  forgetCustomFields(company.id);
  return { outcome, plan: planOf("deleted", stored) };
}
