// Runs the live checks outside Bun's test runner (Node, Deno): ERP_BASE_URL and ERP_TOKEN say where.
import { ErpClient } from "../../mod.ts";
import { checks } from "./checks.ts";

const context = { baseUrl: process.env.ERP_BASE_URL ?? "", token: process.env.ERP_TOKEN ?? "" };
const erp = new ErpClient(context);
let failed = 0;
for (const check of checks) {
  try {
    await check.run(erp, context);
    console.log(`ok ${check.name}`);
  } catch (error) {
    failed++;
    console.log(`not ok ${check.name}\n${error instanceof Error ? error.stack : String(error)}`);
  }
}
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
