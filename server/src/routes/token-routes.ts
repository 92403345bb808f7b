// /v1/tokens (docs/tokens.md): a company lists, makes and revokes its own API tokens. A token
// grants another only scopes it holds itself, and no longer than it lives itself; it revokes only
// itself and tokens whose scopes it holds; any token may list them. Writes run like every other
// write (Idempotency-Key, X-Dry-Run); a create's stored answer, which a retry with its key is
// sent again, holds no secret (`token: null`), and is sent only to a token that could have made it.
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { admitted } from "../auth/admission.ts";
import { expandScope, grants } from "../auth/scopes.ts";
import {
  DAY_MS,
  type IssuedToken,
  issueToken,
  listTokens,
  liveTokenScopes,
  revokeTokenById,
  type TokenInfo,
} from "../auth/tokens.ts";
import { arrayEnvelope, createdOrPreviewed, itemEnvelope } from "../http/envelopes.ts";
import { operationDetail } from "../http/operation-docs.ts";
import { parseQuery } from "../http/query.ts";
import { insufficientScope, notFound, validationFailed } from "../refusals/catalogue.ts";
import type { FieldError } from "../refusals/refusal.ts";
import { timestampSchema } from "../resources/schemas.ts";
import { CONCRETE_SCOPES, GRANTABLE_SCOPES } from "../resources/scopes.ts";
import { CREATED_WITH_SECRET, configMemberId, configWriteDoc } from "./config-routes.ts";
import { BODY_REFUSALS, runWrite, type RouteDeps } from "./route-context.ts";
import type { Answer } from "../writes/execute-write.ts";
import { configAnswer } from "./write-answers.ts";

const PATH = "/v1/tokens";
const TAGS = ["tokens"];
const writeDoc = configWriteDoc("tokens:write", TAGS, ["IdempotencyKey", "XDryRun"]);
const memberId = configMemberId("token");
const MAX_NAME = 100;
const MAX_DAYS = 3650;

const timestamp = timestampSchema();
const ScopeSchema = Type.String({
  enum: [...GRANTABLE_SCOPES],
  title: "TokenScope",
  description:
    "`<resource>:read` or `<resource>:write` (a write scope includes the read), `events:read`, " +
    "`webhooks:read`, `webhooks:write`, `usage:read`, `tokens:write`; `read` or `write` " +
    "for every resource's, `*` for everything.",
});
const tokenProperties = {
  id: Type.Integer(),
  name: Type.String(),
  scopes: Type.Array(ScopeSchema),
  created_at: timestamp,
  expires_at: t.Union([timestamp, t.Null()], { description: "null: the token never expires." }),
};
const TokenSchema = Type.Object(
  {
    ...tokenProperties,
    last_used_at: t.Union([timestamp, t.Null()], {
      description: "The minute the token was last used (null: never).",
    }),
    current: Type.Boolean({ description: "True for the token this request was made with." }),
  },
  { additionalProperties: false, title: "Token" },
);
const CreatedToken = Type.Object(
  {
    ...tokenProperties,
    token: t.Union([Type.String(), t.Null()], {
      description:
        "The secret (erp_…), shown only in the answer to the create itself: keep it. A retry " +
        "with the same Idempotency-Key answers the same body with null here (only its hash " +
        "is stored).",
    }),
  },
  { additionalProperties: false, title: "TokenCreated" },
);
const TokenInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_NAME, examples: ["import-bot"] }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, examples: [["workers:write", "events:read"]] }),
    expires_in_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DAYS,
        description: "Days until the token stops working; absent: never.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "TokenCreate",
    examples: [{ name: "import-bot", scopes: ["workers:write"], expires_in_days: 30 }],
  },
);
const DryRunWrite = Type.Object(
  { dry_run: Type.Literal(true) },
  { additionalProperties: false, title: "TokenDryRun" },
);

interface TokenRequest {
  name: string;
  scopes: string[];
  expiresInDays?: number;
}

/** Every problem of a create body at once, as for the other resources. */
function validate(body: unknown): TokenRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw validationFailed([
      { field: "body", code: "invalid_type", message: "The body must be a JSON object." },
    ]);
  const { name, scopes, expires_in_days: days, ...rest } = body as Record<string, unknown>;
  const errors: FieldError[] = Object.keys(rest).map((field) => ({
    field,
    code: "unknown_field",
    message: `${field} is not a field of a token; send name, scopes and expires_in_days.`,
  }));
  if (typeof name !== "string" || name.trim() === "" || name.length > MAX_NAME)
    errors.push({
      field: "name",
      code: name === undefined ? "required" : "invalid_type",
      message: `name must be text of 1 to ${MAX_NAME} characters, e.g. "import-bot".`,
    });
  if (!Array.isArray(scopes) || scopes.length === 0)
    errors.push({
      field: "scopes",
      code: scopes === undefined ? "required" : "invalid_type",
      message: 'scopes must be a list of one or more scopes, e.g. ["workers:write"].',
    });
  else
    scopes.forEach((scope, index) => {
      if (typeof scope !== "string" || !GRANTABLE_SCOPES.includes(scope))
        errors.push({
          field: `scopes.${index}`,
          code: "invalid_enum",
          message: `${JSON.stringify(scope)} is not a scope; use one of ${GRANTABLE_SCOPES.join(", ")}.`,
        });
    });
  if (
    days !== undefined &&
    (!Number.isInteger(days) || (days as number) < 1 || (days as number) > MAX_DAYS)
  )
    errors.push({
      field: "expires_in_days",
      code: "invalid_value",
      message:
        `expires_in_days must be a whole number of days from 1 to ${MAX_DAYS}, or absent ` +
        `for a token that never expires.`,
    });
  if (errors.length > 0) throw validationFailed(errors);
  return {
    name: (name as string).trim(),
    scopes: scopes as string[],
    ...(days === undefined ? {} : { expiresInDays: days as number }),
  };
}

/**
 * A token grants only what it holds: each scope asked for, as everything it stands for. The same
 * rule says which tokens it may revoke besides itself: those whose scopes it holds.
 */
function refuseEscalation(caller: TokenInfo, scopes: readonly string[]): void {
  for (const scope of scopes) {
    if (scope === "*" && !caller.scopes.has("*")) throw insufficientScope(["*"]);
    for (const concrete of expandScope(scope, CONCRETE_SCOPES))
      if (!grants(caller.scopes, concrete)) throw insufficientScope([concrete]);
  }
}

/**
 * No token outlives the token that made it: an expiring maker gives `expires_in_days` within its
 * own remaining life (whole days: the new token expires no later than the maker).
 */
function refuseOutliving(maker: TokenInfo, days: number | undefined, now = Date.now()): void {
  if (maker.expiresAt === null) return;
  const within = Math.floor((maker.expiresAt - now) / DAY_MS);
  if (days !== undefined && days <= within) return;
  const expires = new Date(maker.expiresAt).toISOString();
  throw validationFailed([
    {
      field: "expires_in_days",
      code: days === undefined ? "required" : "invalid_value",
      message:
        within >= 1
          ? `This token expires at ${expires}, and a token it makes may not outlive it: give ` +
            `expires_in_days from 1 to ${within}.`
          : `This token expires at ${expires}, within a day, and a token it makes may not ` +
            `outlive it: make the token with one that expires later or never.`,
    },
  ]);
}

type CreateAnswer = {
  data: IssuedToken | (Omit<IssuedToken, "token"> & { token: null }) | { dry_run: true };
};

/** A create's answer shows the secret; the answer stored for a replay holds `token: null`. */
function createAnswer(dryRun: boolean): (issued: IssuedToken) => Answer<CreateAnswer> {
  const answer = configAnswer<IssuedToken>(201, dryRun);
  return (issued) => ({ ...answer(issued), stored: { data: { ...issued, token: null } } });
}

export function tokenRoutes(deps: RouteDeps, revoked: { forget(tokenId: number): void }) {
  return admitted("tokens", "api", deps.admission)
    .get(
      PATH,
      async ({ company, token, request }) => {
        parseQuery(request.url, {});
        const tokens = await listTokens(deps.db, company.id);
        return { data: tokens.map((one) => ({ ...one, current: one.id === token.id })) };
      },
      {
        detail: operationDetail({
          operationId: "listTokens",
          summary: "List the company's tokens",
          description:
            "Every live (not revoked) token of the company, oldest first, with its name, " +
            "scopes, expiry and the minute it was last used; never a secret. Any token may " +
            "list them.",
          tags: TAGS,
          scope: [],
          refusals: ["invalid_query"],
          responses: { 200: { description: "Every live token." } },
        }),
        response: { 200: arrayEnvelope(TokenSchema, "TokenList") },
      },
    )
    .post(
      PATH,
      ({ company, token, request, ctx, set }) =>
        runWrite(
          deps,
          { company, request, ctx, set },
          async (tx, body) => {
            const wanted = validate(body);
            refuseOutliving(token, wanted.expiresInDays);
            return { outcome: await issueToken(tx.db, company.id, wanted) };
          },
          createAnswer(ctx.dryRun),
          // Also before a replay: only a token that could have made this one is answered.
          { allowed: (body) => refuseEscalation(token, validate(body).scopes) },
        ),
      {
        detail: operationDetail({
          operationId: "createToken",
          summary: "Create a token",
          description:
            "A new token of the company with a name, its scopes and, with `expires_in_days`, an " +
            "expiry. The secret is in the answer, once: a retry with the same Idempotency-Key " +
            "answers `token: null`, and only to a token holding every scope of the one made. A " +
            "token grants only scopes it holds itself: asking for more is 403 " +
            "insufficient_scope naming the scope. A token that expires makes only tokens that " +
            "expire no later (else 422 on expires_in_days). See docs/tokens.md for the scope " +
            "each kind of integration needs.",
          ...writeDoc(BODY_REFUSALS),
          body: TokenInput,
          responses: CREATED_WITH_SECRET,
        }),
        response: createdOrPreviewed(
          itemEnvelope(Type.Union([CreatedToken, DryRunWrite]), "TokenCreatedResult"),
        ),
      },
    )
    .delete(
      `${PATH}/:id`,
      async ({ company, token, request, ctx, set, params }) => {
        const id = memberId(params);
        const answer = await runWrite(
          deps,
          { company, request, ctx, set },
          async (tx) => {
            if (id !== token.id) {
              const scopes = await liveTokenScopes(tx.db, company.id, id);
              if (!scopes) throw notFound("token", id);
              refuseEscalation(token, scopes);
            }
            if (!(await revokeTokenById(tx.db, company.id, id))) throw notFound("token", id);
            return { outcome: { id, revoked: true as const } };
          },
          configAnswer(200, ctx.dryRun),
          { takesBody: false },
        );
        // This process stops accepting it at once; the others within a second (docs/tokens.md).
        if (!ctx.dryRun) revoked.forget(id);
        return answer;
      },
      {
        detail: operationDetail({
          operationId: "revokeToken",
          summary: "Revoke a token",
          description:
            "The token stops working at once on this server and within a second on every other. " +
            "Needs tokens:write and every scope of the token revoked (else 403 " +
            "insufficient_scope naming one it lacks), except that a token may always revoke " +
            "itself.",
          ...writeDoc(["not_found"]),
          ownToken: true,
          responses: {
            200: {
              description: "Revoked (or `{dry_run: true}`).",
              headers: ["IdempotentReplayed"],
            },
          },
        }),
        response: {
          200: t.Union([
            itemEnvelope(
              Type.Object(
                { id: Type.Integer(), revoked: Type.Literal(true) },
                { additionalProperties: false, title: "TokenRevoked" },
              ),
              "TokenRevokeResult",
            ),
            itemEnvelope(DryRunWrite, "TokenDryRunResult"),
          ]),
        },
      },
    );
}
