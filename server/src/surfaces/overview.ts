// The OpenAPI document's introduction: the conventions every operation shares, and the
// choices made where the specification leaves room.
import { DEFAULT_LIMIT, MAX_LIMIT } from "../http/paging.ts";

export const OVERVIEW = `A JSON API over a construction company's ERP: projects, workers, clients, estimates,
subcontractors and equipment (with rentals), all scoped to the company of the token you send, and
the company's own lookups, the trades and equipment categories its records name.

## Lookups
Trades and equipment categories are seeded for every company and then managed by it: create,
rename (PATCH), delete and restore them like records, with dry-run, Idempotency-Key, If-Match and
events (\`trade.created\`, \`equipment_category.deleted\`, …), one at a time (no batches or
upserts). Reading them takes any read scope; writing them \`lookups:write\`. A name is stored
without its surrounding spaces and is unique among the company's live ones ignoring case
(\`Electrical\` and \` electrical \` are one name, 409 \`unique_violation\`); accents count
(\`Électrique\` and \`Electrique\` are two). \`name=\` finds a name by that same rule. A
deleted one stays on the records that name it (\`expand\` shows it as \`{id, deleted: true}\`) but
new writes cannot name it (422), until it is restored.

## Authentication and add-ons
Send \`Authorization: Bearer <token>\` on every data request; a missing, unknown, revoked or expired
token is 401 \`unauthorized\`. Each operation names the scope it needs in its security requirement
(\`workers:write\`; a write scope includes its read scope, \`read\` and \`write\` stand for every
resource's, \`*\` for all); a token without it is 403 \`insufficient_scope\`, once the record the path
names is known to be yours (another company's is 404). Tokens are listed, made and revoked at
/v1/tokens. Every data endpoint needs the API add-on; estimates, subcontractors and
equipment (with rentals and equipment categories) need their own add-on too, else 402
\`feature_off\`. This document, the reference at /v1/docs, the collection at /v1/collection.json and
/healthz need no token and are not metered.

## Responses
Success bodies carry \`data\`; lists also carry \`meta\` = \`{total, limit, offset}\` (an \`after_id\`
page: \`{total, limit, after_id, next_after_id}\`). Create answers
201 with \`Location\` and \`{id, created, dry_run}\` (a dry-run: 200, \`id\` null); an upsert answers
\`{id, created, updated, dry_run, changes?, record?}\`; update answers \`{id, updated, dry_run, changes,
record}\` where \`changes\` maps each changed field to \`{from, to}\`; delete answers \`{id, deleted,
dry_run, mode, would_delete, would_keep}\` with elements \`{resource, id}\`. Every response carries
\`X-Request-Id\`: yours when you send one of 1-128 characters of \`A-Za-z0-9._:-\`, else a
generated one (a value in any other shape is never echoed or stored).

## Paging, filters and fields
\`limit\` defaults to ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped (not refused) and \`meta.limit\` shows the
effective value; below 1 or not an integer is 400. \`offset\` defaults to 0. Records are ordered by
id ascending, so reading \`meta.total\` and raising \`offset\` by \`limit\` until it reaches
\`total\` visits every record once. \`after_id=N\` (instead of \`offset\`; both together are 400)
answers the records with an id above N, and \`meta.next_after_id\` is the \`after_id\` of the next
page while more follow (absent on the last page): starting at \`after_id=0\` and following it also
visits every record once, and a page costs the same however deep it is, where an \`offset\` page
costs more the further it starts. \`sort=name,-created_at\` orders a list by the fields of its
\`sort\` enum (\`-\` descending; \`id\` breaks ties in the direction of the last field); a sorted
page carries \`meta.next_cursor\` while more follow, the \`after\` of the next page, bound to the
sort and filters. Equality filters take a comma for any of (\`status=ACTIVE,ON_HOLD\`); dates, money
and timestamps take ranges (\`hired_on[gte]=2024-01-01&hired_on[lt]=2025-01-01\`). \`expand=client\`
embeds the record a reference names (two levels: \`project.client\`). The \`meta.total\` of a list
without filters is kept as records are written, so it costs the same for ten records or a million;
\`total=false\` leaves it out and skips counting a filtered list.
\`q\` is a case-insensitive substring match in which \`%\` and \`_\`
are literal; \`status\` is case-insensitive. \`fields=a,b\` (or \`fields=a&fields=b\`) returns only those
fields plus \`id\`. A parameter a route does not list, an unknown field or a bad value is 400
\`invalid_query\`.

Sparse reads have their own media type. A read without \`fields\` answers \`application/json\` with
whole records (the \`Project\` schema: every field present), so generated clients type a plain read
exactly. A read with \`fields\` answers \`application/vnd.erp.sparse+json\` (the \`ProjectSparse\`
schema: \`id\` plus the fields asked for); the body is the same JSON envelope, answered as
\`application/json\` to a client whose \`Accept\` names that type and not the sparse one. Generators that union
every media type of a response can be told to use \`application/json\` (openapi-fetch:
\`createClient<paths, "application/json" | "application/problem+json">\`; orval:
\`override.contentType.include\`). Validators that match media types without their \`+json\`
suffix (Prism 5's proxy) check a \`fields\` answer against the whole-record schema and report
the missing fields; every other answer validates there.

## Reports: totals and groups
\`GET /v1/{resource}/aggregate\` counts and totals the records a list's filters select (the same
parameters: \`q\`, equality filters, ranges, \`updated_since\`; deleted records never count), in
groups, so a dashboard needs one request instead of paging through every record.
\`group_by\` takes up to 3 of the resource's enums (\`status\`), references (\`trade_id\`) and
booleans, and dates or timestamps by \`day(f)\`, \`week(f)\` (ISO 8601, \`2026-W11\`), \`month(f)\` or
\`year(f)\`; \`metrics\` takes \`count\` (the default), \`sum(f)\`, \`avg(f)\`, \`min(f)\`, \`max(f)\` of
money and \`min(f)\`, \`max(f)\` of dates. Each group is \`{"group": {…keys in group_by order},
"count": 12, "sum(budget_amount)": "125000.00"}\`, sorted by its keys (null first), and
\`meta.groups\` counts them. Money is exact decimal text added by the database, never through
floating point: \`sum\` of no values is \`"0.00"\`, and \`avg\` of money is the exact mean rounded
half to even (banker's rounding) to 2 decimals. Where the resource has a \`currency\`, money
metrics are grouped by it too (its last key): amounts in different currencies are never added.
More than 1,000 groups is 400 \`too_many_groups\`; a name \`group_by\` or \`metrics\` does not take
is 400 \`invalid_query\` naming it. A report carries an ETag like a list (304 when unchanged).

## Conditional requests
Reads carry a strong \`ETag\` computed from the exact body, so it changes whenever the body would.
Send it back in \`If-None-Match\` to get 304 Not Modified with an empty body. On PATCH and DELETE,
\`If-Match\` takes the ETag of a GET of that record (without \`fields\`); when the record has changed
since, nothing is written and the answer is 412 \`precondition_failed\` carrying the current
\`ETag\`. \`*\` matches any live record.

## Dry-run
\`X-Dry-Run: 1\` or \`dry_run=1\` on a write runs every validation, reference, quota, transition and
delete rule and answers as the write would (a dry-run create answers 200 with \`id: null\`),
but nothing is written and no id is consumed. Dry-runs authenticate and are metered like any
request.

## Idempotency
Send \`Idempotency-Key\` (1-255 printable ASCII characters) on POST, PATCH and DELETE. The first
request runs. Only a real write that succeeded binds its key: its 2xx answer is stored in the same
transaction as the write, kept 24 hours, and a retry with the same key, method, path, dry-run flag
and body (key order does not matter) gets it back with \`Idempotent-Replayed: true\`, running
nothing. A refusal (4xx), a 5xx, a crash or a dry-run binds nothing: the retry with the same key
runs again against the current state (after the quota was freed, the body fixed, the referenced
record created), so "dry-run, then the real write with the same key" works. Once a key is bound,
the same key with a different request is 409 \`idempotency_key_reuse\`; a duplicate that arrives
while the first still runs waits for it and gets its answer, or 409 \`idempotency_in_progress\`
with \`Retry-After\` if it runs long.

## Deletes
Every delete is soft: the record is kept for history but is gone from the API (GET answers 404,
lists skip it, references to it are refused, deleting it again is 404). \`would_delete\` lists the
record and what goes with it (unbilled rentals of equipment or projects); \`would_keep\` lists live
records that reference it and stay. A record that protected history depends on (a converted
estimate backing a live project's budget, equipment or a project with a billed rental) is 409
\`delete_blocked\`, with \`blockers\` naming the records.

## Errors
Every error is RFC 9457 problem details (\`application/problem+json\`): \`type\` (always
\`about:blank\`), \`title\`, \`status\`, \`detail\`, a stable \`code\`, \`request_id\`, and for 422 the
list of every failing field in \`errors\` (all of them in one answer, each with a \`code\` and a
sentence to act on). Each operation lists the statuses and codes it can answer with. An unknown
path is 404 \`route_not_found\`, a known path with another method 405 \`method_not_allowed\` with
\`Allow\`. When the database cannot be reached or does not answer within 10 s, at any stage of a
request, the answer is 503 \`database_unavailable\` with \`Retry-After\` and nothing was changed
(a write whose COMMIT was on its way is answered with its real outcome; only if the database stays
away is it 503 \`commit_outcome_unknown\`: send it again with the same \`Idempotency-Key\`);
deadlocks and cluster conflicts are retried inside the server and never reach you.

## Limits and metering
Plans cap live projects and workers (402 \`quota_exceeded\`, never a silent upgrade) and requests per
minute (429 \`rate_limited\` with \`Retry-After\`), in fixed one-minute windows shared by every
server (each counts in memory and shares its count about once a second, so several servers may
together admit about a second of extra traffic). Under a request limit, data responses carry
\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds); replays and refused
requests (a 4xx answer) do not count, and their own \`RateLimit-Remaining\` already shows that.
Every authenticated data request is metered, dry-runs included; idempotent replays are counted
apart (\`GET /v1/usage\`). A revoked or expired token is refused within 1 s on every server; a
change of plan takes effect within 5 s. A body is JSON of at most 1 MiB (413
\`payload_too_large\`, however it is sent) nesting objects and arrays at most 32 levels deep
(deeper is 400 \`malformed_json\`), all of it arrived within 10 s of the request (else 408
\`request_timeout\`).

## Change feed
Every committed change appends an event in the same transaction: \`GET /v1/events\` lists them
in commit order; pass \`meta.next_cursor\` as \`after\` to see each exactly once (polling with the
last cursor follows the feed). \`GET /v1/{resource}/{id}/events\` is one record's history. Lists
take \`updated_since\` and \`include_deleted=true\` for resyncs. Events are kept 30 days.

## Browsers
Any origin may call the API (CORS): tokens travel in the \`Authorization\` header, never in cookies.
Preflights are answered, and \`ETag\`, \`Location\`, \`X-Request-Id\`, \`Idempotent-Replayed\`,
\`Retry-After\` and the \`RateLimit-*\` headers are exposed to scripts.

## Versioning
The version is the path prefix \`/v1\`. This document is generated from the routes the server
serves, on every request.`;
