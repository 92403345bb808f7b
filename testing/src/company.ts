// Creates companies and tokens directly in the test database, as `bun run admin` does.
import {
  ADDONS,
  connectDatabase,
  createCompany,
  issueToken,
  revokeToken,
  type DatabaseHandle,
  type NewCompany,
} from "@erp/server/admin";
import { testDatabaseUrl } from "./server.ts";

let handle: DatabaseHandle | undefined;

/** A pool on the test database, shared by one test file. */
export function testDb(): DatabaseHandle {
  handle ??= connectDatabase(testDatabaseUrl(), { connectionLimit: 4 });
  return handle;
}

export async function closeTestDb(): Promise<void> {
  await handle?.close();
  handle = undefined;
}

export interface TestCompany {
  companyId: number;
  token: string;
}

let counter = 0;

export async function newCompany(overrides: Partial<NewCompany> = {}): Promise<TestCompany> {
  counter += 1;
  const created = await createCompany(testDb().db, {
    name: `Test company ${counter} ${crypto.randomUUID().slice(0, 8)}`,
    plan: "enterprise",
    addons: [...ADDONS],
    ...overrides,
  });
  return { companyId: created.company_id, token: created.token };
}

/** Another token of the company; `spec` names its scopes (default `*`) and expiry. */
export const newToken = async (
  companyId: number,
  spec: { name?: string; scopes?: string[]; expiresInDays?: number } = {},
): Promise<string> => {
  const issued = await issueToken(testDb().db, companyId, {
    name: spec.name ?? "test",
    scopes: spec.scopes ?? ["*"],
    ...(spec.expiresInDays === undefined ? {} : { expiresInDays: spec.expiresInDays }),
  });
  return issued.token;
};
export const revoke = (token: string): Promise<boolean> => revokeToken(testDb().db, token);
