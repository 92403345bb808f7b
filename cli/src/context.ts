// What every action needs from the global flags: an SDK client for the resolved connection, and the output format.
import type { Command } from "commander";
import { ErpClient } from "@erp/sdk";
import { type ConnectionFlags, resolveConnection } from "./config.ts";
import { type OutputFormat, outputFormat } from "./output.ts";

export interface GlobalOptions extends ConnectionFlags {
  output?: string | undefined;
  verbose?: boolean | undefined;
}

export const globalOptions = (command: Command): GlobalOptions =>
  command.optsWithGlobals<GlobalOptions>();

/** The output format from `--output`, checked before any request is sent. */
export const formatOf = (command: Command): OutputFormat =>
  outputFormat(globalOptions(command).output);

/**
 * An SDK client for the connection the flags, the environment or the saved login give.
 * `onRequest` hears of every request it sends, its own retries included.
 */
export function clientOf(
  command: Command,
  overrides: { maxRetries?: number; onRequest?: () => void } = {},
): ErpClient {
  const options = globalOptions(command);
  const { baseUrl, token } = resolveConnection(options);
  const send = options.verbose
    ? verboseFetch
    : (url: string, init: RequestInit) => fetch(url, init);
  const { onRequest, ...rest } = overrides;
  return new ErpClient({
    baseUrl,
    token,
    ...rest,
    headers: { "user-agent": "erp-cli" },
    fetch: onRequest
      ? (url, init) => {
          onRequest();
          return send(url, init);
        }
      : send,
  });
}

/** --verbose: each request and its answer on stderr, one line each (never the token). */
async function verboseFetch(url: string, init: RequestInit): Promise<Response> {
  const started = performance.now();
  const key = (init.headers as Record<string, string> | undefined)?.["idempotency-key"];
  const keyed = key === undefined ? "" : ` (Idempotency-Key ${key})`;
  process.stderr.write(`> ${init.method ?? "GET"} ${url}${keyed}\n`);
  const response = await fetch(url, init);
  const elapsed = Math.round(performance.now() - started);
  const requestId = response.headers.get("x-request-id");
  const tagged = requestId ? ` (X-Request-Id ${requestId})` : "";
  process.stderr.write(`< ${response.status} ${response.statusText} in ${elapsed} ms${tagged}\n`);
  return response;
}
