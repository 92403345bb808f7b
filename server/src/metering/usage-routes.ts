// GET /v1/usage: this month's metered requests and the plan quotas, for the calling company.
import { t } from "elysia";
import { Type } from "@sinclair/typebox";
import { and, eq } from "drizzle-orm";
import { admitted, type Admission } from "../auth/admission.ts";
import type { Database } from "../db/client.ts";
import { usageCounters } from "../db/schema.ts";
import { parseQuery } from "../http/query.ts";
import { readResponse } from "../http/respond.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { RESOURCES } from "../resources/registry.ts";
import { liveTotal } from "../resources/live-total.ts";
import { periodOf } from "./usage-meter.ts";
import { STORAGE_BYTES } from "../auth/plans.ts";
import { storedBytes } from "../attachments/rows.ts";

/** The resources a plan's quota limits, each with its own line of the plans' quotas. */
const LIMITED = RESOURCES.filter((def) => def.quota !== undefined);

const Quota = Type.Object(
  {
    used: Type.Integer({ description: "Live (not deleted) records now." }),
    limit: t.Union([Type.Integer(), t.Null()], {
      description: "The plan's limit, or null for unlimited.",
    }),
  },
  { additionalProperties: false, title: "UsageQuota" },
);

export const UsageResult = Type.Object(
  {
    data: Type.Object(
      {
        period: Type.String({
          pattern: "^[0-9]{4}-[0-9]{2}$",
          description: "The calendar month (UTC) the counters cover, YYYY-MM.",
          examples: ["2026-03"],
        }),
        requests: Type.Integer({
          description: "Metered requests this month, dry-runs included, replays not.",
        }),
        dry_run_requests: Type.Integer({ description: "Of those, the dry-run writes." }),
        replays: Type.Integer({
          description: "Idempotent replays this month (not in `requests`).",
        }),
        quotas: Type.Object(Object.fromEntries(LIMITED.map((def) => [def.name, Quota])), {
          additionalProperties: false,
        }),
        storage: Type.Object(
          {
            used: Type.Integer({
              description:
                "Bytes of attachments stored now (those of deleted records until purged).",
            }),
            limit: Type.Integer({ description: "The bytes of attachments the plan keeps." }),
          },
          { additionalProperties: false, title: "UsageStorage" },
        ),
      },
      { additionalProperties: false, title: "Usage" },
    ),
  },
  { additionalProperties: false, title: "UsageResult" },
);

const DESCRIPTION = [
  "Usage of the calling company in the current calendar month (UTC) and its plan quotas. Needs the API add-on.",
  "Metered: every data request that presents a valid token, whatever its outcome (errors, 429s " +
    "and dry-runs included), counted once in `requests`;",
  "dry-run writes are also counted in `dry_run_requests`. A replay of a stored idempotent " +
    "result is counted in `replays` only.",
  "Not metered: the specification surfaces, /healthz, this endpoint, and requests without a valid token.",
  "Counters are exact and lag real time by at most 2 seconds.",
].join(" ");

/** `admission` is one without a meter: this endpoint is never metered. */
export function usageRoutes(deps: { db: Database; admission: Admission }) {
  const { db } = deps;
  return admitted("usage", "api", deps.admission).get(
    "/v1/usage",
    async ({ request, set, company }) => {
      parseQuery(request.url, {});
      const period = periodOf(Date.now());
      const [counters, used, bytes] = await Promise.all([
        db
          .select()
          .from(usageCounters)
          .where(and(eq(usageCounters.company_id, company.id), eq(usageCounters.period, period))),
        Promise.all(LIMITED.map((def) => liveTotal(db, def, company.id))),
        storedBytes(db, company.id),
      ]);
      const row = counters[0];
      return readResponse(
        { request, set },
        {
          data: {
            period,
            requests: Number(row?.requests ?? 0),
            dry_run_requests: Number(row?.dry_run_requests ?? 0),
            replays: Number(row?.replays ?? 0),
            quotas: Object.fromEntries(
              LIMITED.map((def, index) => [
                def.name,
                { used: used[index]!, limit: company.limits[def.quota!] },
              ]),
            ),
            storage: { used: bytes, limit: STORAGE_BYTES[company.plan] },
          },
        },
      );
    },
    {
      detail: operationDetail({
        scope: "usage:read",
        operationId: "getUsage",
        summary: "Usage and quotas",
        description: DESCRIPTION,
        tags: ["usage"],
        headers: ["IfNoneMatch"],
        responses: {
          200: { description: "This month's counters and the plan quotas.", headers: ["ETag"] },
          304: {
            description: "Not Modified: the ETag sent in If-None-Match still matches; empty body.",
            headers: ["ETag"],
          },
        },
        refusals: ["invalid_query"],
      }),
      response: { 200: UsageResult },
    },
  );
}
