// Turns whatever stopped a command into one readable message on stderr and the exit code that goes with it.
import { ApiConnectionError, ErpError } from "@erp/sdk";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import type { Output } from "./factory.ts";
import { red } from "./colour.ts";
import { UsageError } from "./usage-error.ts";

export function reportError(error: unknown, err: Output = process.stderr): ExitCode {
  if (error instanceof UsageError) {
    err.write(`${red("error:")} ${error.message}\n(run with --help for usage)\n`);
    return EXIT.USAGE;
  }
  if (error instanceof ErpError) {
    err.write(describeApiError(error));
    return EXIT.API_ERROR;
  }
  err.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.API_ERROR;
}

/** `error: 422 validation_failed: <detail>`, one line per failing field, and the request id to quote. */
export function describeApiError(error: ErpError): string {
  if (error instanceof ApiConnectionError) return `${red("error:")} ${error.message}\n`;
  const detail = problemDetail(error.body) ?? error.message;
  const lines = [`${red("error:")} ${error.status} ${error.code}: ${detail}`];
  for (const field of error.errors)
    lines.push(`  - ${field.field}: ${field.message} (${field.code})`);
  if (error.requestId) lines.push(`  request id: ${error.requestId}`);
  return `${lines.join("\n")}\n`;
}

function problemDetail(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  return typeof detail === "string" ? detail : undefined;
}
