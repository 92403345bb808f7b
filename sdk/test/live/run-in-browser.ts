// Browser entry of the live checks (bundled with `bun build --target=browser`): the page calls
// `runLiveChecks(context)` and gets one result per check back, instead of console output.
import { ErpClient } from "../../mod.ts";
import { checks, type LiveContext } from "./checks.ts";

export interface CheckResult {
  name: string;
  ok: boolean;
  error?: string;
}

async function runLiveChecks(context: LiveContext): Promise<CheckResult[]> {
  const erp = new ErpClient(context);
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      await check.run(erp, context);
      results.push({ name: check.name, ok: true });
    } catch (error) {
      results.push({
        name: check.name,
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
  }
  return results;
}

(globalThis as { runLiveChecks?: typeof runLiveChecks }).runLiveChecks = runLiveChecks;
