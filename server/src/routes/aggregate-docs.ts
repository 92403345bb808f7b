// What a report of a resource (`GET /v1/{resource}/aggregate`) takes and answers, derived from its
// definition like its list: the parameters, the schema of its rows and its text in the document.
import { type TSchema, Type } from "@sinclair/typebox";
import type { OperationDocFields } from "../http/operation-docs.ts";
import { described, documented, type ParamParser } from "../http/query.ts";
import {
  MAX_GROUP_KEYS,
  MAX_GROUPS,
  type ReportField,
  reportFields,
  reportVocabulary,
} from "../resources/aggregates.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { recordFields } from "../resources/fields.ts";
import { filterParsers } from "./list-parsers.ts";

/**
 * A comma-separated list of names, documented as an array of the values it takes; each name is
 * checked by the report's plan (resources/aggregates.ts), which knows a company's own fields too.
 */
const namesParam = (values: readonly string[]): ParamParser<string[]> =>
  documented((value) => value.split(",").map((name) => name.trim()), {
    schema: { type: "array", items: { type: "string", enum: [...values] }, minItems: 1 },
    style: "form",
    explode: false,
  });

/** The parameters of a report: `group_by`, `metrics`, and every filter of the list. */
export function aggregateParsers(def: ResourceDefinition): Record<string, ParamParser<unknown>> {
  const vocabulary = reportVocabulary(reportFields(def));
  return {
    group_by: described(
      namesParam(vocabulary.groupBy),
      `Up to ${MAX_GROUP_KEYS} fields to group by, comma-separated, in the order the groups are ` +
        "keyed and sorted: enums (status), references and booleans by value, dates and " +
        "timestamps by `day(f)` (2026-03-09), `week(f)` (ISO 8601, 2026-W11), `month(f)` " +
        "(2026-03) or `year(f)` (2026); your select and boolean custom fields as `cf.<key>`, your " +
        "date ones bucketed (`month(cf.<key>)`). Without it, one group of every selected record.",
    ),
    metrics: described(
      namesParam(vocabulary.metrics),
      "What each group computes, comma-separated (default `count`): `count` of records; " +
        "`sum(f)`, `avg(f)`, `min(f)`, `max(f)` of a money field or of an integer, decimal or " +
        "money custom field (`sum(cf.<key>)`); `min(f)`, `max(f)` of a date.",
    ),
    ...filterParsers(def),
  };
}

/** The schema of a group key's or metric's value, by what it reads. */
function valueSchema(read: ReportField | undefined, name: string, def: ResourceDefinition) {
  const spec = recordFields(def).find(([field]) => field === name)?.[1];
  const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
  switch (read?.kind) {
    case "enum":
      return nullable(
        Type.Union((spec?.type === "enum" ? spec.values : []).map((v) => Type.Literal(v))),
      );
    case "id":
      return nullable(Type.Integer());
    case "boolean":
      return nullable(Type.Boolean());
    default:
      return nullable(Type.String());
  }
}

/** One group of a report: `group` keyed by `group_by` (then `currency`), then each metric. */
export function reportRowSchema(def: ResourceDefinition): TSchema {
  const fields = reportFields(def);
  const vocabulary = reportVocabulary(fields);
  const group = Object.fromEntries(
    vocabulary.groupBy.map((name) => [
      name,
      Type.Optional(valueSchema(fields.groupable.get(name), name, def)),
    ]),
  );
  const money = Type.Union([
    Type.String({ pattern: "^[0-9]+\\.[0-9]{2}$", examples: ["125000.00"] }),
    Type.Null(),
  ]);
  const metrics = Object.fromEntries(
    vocabulary.metrics
      .filter((name) => name !== "count")
      .map((name) => [
        name,
        Type.Optional(
          fields.summable.has(name.slice(4, -1)) ? money : Type.Union([Type.String(), Type.Null()]),
        ),
      ]),
  );
  return Type.Object(
    {
      group: Type.Object(group, {
        description:
          "The group's key: one member per `group_by` field, in its order (null for records " +
          "without a value), then `currency` when money is summed.",
      }),
      count: Type.Optional(Type.Integer({ minimum: 0 })),
      ...metrics,
    },
    { title: `${def.singular}ReportRow` },
  );
}

/** `{data: [rows], meta: {groups}}`. */
export const reportEnvelope = (def: ResourceDefinition): TSchema =>
  Type.Object(
    {
      data: Type.Array(reportRowSchema(def)),
      meta: Type.Object({ groups: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    },
    { additionalProperties: false, title: `${def.singular}Report` },
  );

/** The report's summary, description and answers in the document. */
export function aggregateText(
  def: ResourceDefinition,
): Omit<OperationDocFields, "operationId" | "tags" | "query" | "refusals"> {
  const currency = reportFields(def).currency;
  return {
    summary: `Totals of ${def.name} in groups`,
    description:
      `Counts and totals of the ${def.name} the list's filters select (the same parameters, ` +
      `deleted records never counted), in groups: a dashboard's numbers in one request. ` +
      `Money is exact decimal text added by the database, never through floating point; ` +
      "`sum` of a group without values is `0.00`; `avg` of money is the exact mean rounded " +
      "half to even (banker's rounding) to 2 decimals; `avg`, `min` and `max` of a group " +
      `without values are null. ${
        currency
          ? `Money metrics are grouped by \`${currency}\` as well (its last group key): ` +
            "amounts in different currencies are never added. "
          : ""
      }Groups come sorted by their keys in \`group_by\` order (null first). More than ` +
      `${MAX_GROUPS.toLocaleString("en")} groups is 400 too_many_groups; a name \`group_by\` or ` +
      "`metrics` does not take is 400 invalid_query naming it. The ETag serves If-None-Match (304).\n\n" +
      "Example, a dashboard's budget by month: `GET /v1/projects/aggregate?group_by=status," +
      "month(start_date)&metrics=count,sum(budget_amount)&status=ACTIVE,ON_HOLD` → " +
      '`{"data": [{"group": {"status": "ACTIVE", "month(start_date)": "2026-03", "currency": ' +
      '"USD"}, "count": 12, "sum(budget_amount)": "125000.00"}], "meta": {"groups": 1}}`.',
    headers: ["IfNoneMatch"],
    responses: {
      200: { description: `The groups of ${def.name}.`, headers: ["ETag"] },
      304: {
        description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.",
        headers: ["ETag"],
      },
    },
  };
}
