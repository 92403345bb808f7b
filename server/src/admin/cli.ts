// `bun run admin …`: company and token administration (README.md).
import { Command, InvalidArgumentError, Option } from "commander";
import { issueToken, revokeToken } from "../auth/tokens.ts";
import { PLAN_NAMES, type Plan, QUOTA_NAMES, type QuotaName } from "../auth/plans.ts";
import { connectDatabase } from "../db/client.ts";
import { migrateDatabase } from "../db/migrate.ts";
import type { Addon } from "../auth/addons.ts";
import { createCompany, recountLiveRecords } from "./companies.ts";
import { ADDONS } from "../resources/registry.ts";
import { GRANTABLE_SCOPES } from "../resources/scopes.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set (bun run admin sets it for you)");
  process.exit(2);
}

const positiveInt = (value: string): number => {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError("expected a whole number");
  return Number(value);
};
const addonList = (value: string): Addon[] => {
  const addons = value
    .split(",")
    .map((addon) => addon.trim())
    .filter(Boolean);
  const unknown = addons.filter((addon) => !ADDONS.includes(addon as Addon));
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown add-on ${unknown.join(", ")}; known: ${ADDONS.join(", ")}`,
    );
  return addons as Addon[];
};

async function withDatabase<T>(
  fn: (db: ReturnType<typeof connectDatabase>["db"]) => Promise<T>,
): Promise<T> {
  // Connections set up as the server's are, for what the database server needs of them.
  const facts = await migrateDatabase(url!);
  const handle = connectDatabase(url!, { ...facts, connectionLimit: 2 });
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

const print = (json: boolean, value: Record<string, unknown>, human: string): void => {
  console.log(json ? JSON.stringify(value) : human);
};

const program = new Command("admin")
  .description("Administer companies and API tokens")
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
const company = program.command("company").description("Companies");
/** `--max-<resource>` for each line of the plans' quotas. */
const quotaOptions = QUOTA_NAMES.map(
  (name) =>
    [
      name,
      new Option(`--max-${name} <n>`, `override the plan's quota of ${name}`).argParser(
        positiveInt,
      ),
    ] as const,
);
const createCommand = company
  .command("create")
  .requiredOption("--name <name>", "company name")
  .addOption(new Option("--plan <plan>", "plan").choices(PLAN_NAMES).makeOptionMandatory())
  .option("--addons <list>", `comma-separated add-ons (${ADDONS.join(", ")})`, addonList, [
    "api",
  ] as Addon[]);
for (const [, option] of quotaOptions) createCommand.addOption(option);
createCommand
  .option("--rate-limit <n>", "override the plan's requests per minute", positiveInt)
  .option("--json", "print JSON")
  .action(
    async (options: {
      name: string;
      plan: Plan;
      addons: Addon[];
      rateLimit?: number;
      json?: boolean;
      [maxOfQuota: string]: unknown;
    }) => {
      const quotas: Partial<Record<QuotaName, number>> = {};
      for (const [name, option] of quotaOptions) {
        const limit = options[option.attributeName()];
        if (typeof limit === "number") quotas[name] = limit;
      }
      const created = await withDatabase((db) => createCompany(db, { ...options, quotas }));
      print(
        Boolean(options.json),
        created,
        `company ${created.company_id} created; token (shown once): ${created.token}`,
      );
    },
  );

company
  .command("recount")
  .description(
    "set the company's live-record counters (quotas, list totals) from its records, after rows " +
      "were loaded around the API",
  )
  .requiredOption("--company <id>", "company id", positiveInt)
  .option("--json", "print JSON")
  .action(async (options: { company: number; json?: boolean }) => {
    await withDatabase((db) => recountLiveRecords(db, options.company));
    print(
      Boolean(options.json),
      { company_id: options.company, recounted: true },
      `company ${options.company}: live-record counters set from its records`,
    );
  });

const scopeList = (value: string): string[] => {
  const scopes = value
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !GRANTABLE_SCOPES.includes(scope));
  if (scopes.length === 0 || unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown scope ${unknown.join(", ")}; known: ${GRANTABLE_SCOPES.join(", ")}`,
    );
  return scopes;
};

const token = program.command("token").description("API tokens");
token
  .command("create")
  .requiredOption("--company <id>", "company id", positiveInt)
  .option("--name <name>", "what the token is for (shown by GET /v1/tokens)", "admin")
  .option("--scopes <list>", "comma-separated scopes (docs/tokens.md)", scopeList, ["*"])
  .option("--expires-in-days <n>", "the token stops working after this many days", positiveInt)
  .option("--json", "print JSON")
  .action(
    async (options: {
      company: number;
      name: string;
      scopes: string[];
      expiresInDays?: number;
      json?: boolean;
    }) => {
      const issued = await withDatabase((db) =>
        issueToken(db, options.company, {
          name: options.name,
          scopes: options.scopes,
          ...(options.expiresInDays === undefined ? {} : { expiresInDays: options.expiresInDays }),
        }),
      );
      print(
        Boolean(options.json),
        { company_id: options.company, ...issued },
        `token ${issued.id} (${issued.scopes.join(" ")}, expires ` +
          `${issued.expires_at ?? "never"}), shown once: ${issued.token}`,
      );
    },
  );
token
  .command("revoke")
  .requiredOption("--token <token>", "the token to revoke")
  .option("--json", "print JSON")
  .action(async (options: { token: string; json?: boolean }) => {
    const revoked = await withDatabase((db) => revokeToken(db, options.token));
    print(Boolean(options.json), { revoked }, revoked ? "token revoked" : "no live token matches");
    if (!revoked) process.exitCode = 1;
  });

await program.parseAsync(process.argv);
