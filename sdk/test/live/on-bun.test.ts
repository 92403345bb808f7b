// The SDK against a real server on the test database: every live check as a Bun test.
import { beforeAll, describe, test } from "bun:test";
import { newCompany } from "@erp/testing/company";
import { useServer } from "@erp/testing/suite";
import { ErpClient } from "../../mod.ts";
import { checks, type LiveContext } from "./checks.ts";

const suite = useServer();
let context: LiveContext;
let erp: ErpClient;

beforeAll(async () => {
  context = { baseUrl: suite.server.baseUrl, token: (await newCompany()).token };
  erp = new ErpClient(context);
});

describe("SDK on a live server (Bun)", () => {
  for (const check of checks) test(check.name, () => check.run(erp, context));
});
