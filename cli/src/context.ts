// What every action needs from the global flags: an SDK client for the resolved connection, and the output format.
import type { Command } from "commander";
import { ErpClient, type FetchLike } from "@erp/sdk";
import { type ConnectionFlags, resolveConnection } from "./config.ts";
import { type Factory, type Output, processFactory } from "./factory.ts";
import { type OutputFormat, outputFormat } from "./output.ts";

export interface GlobalOptions extends ConnectionFlags {
  output?: string | undefined;
  verbose?: boolean | undefined;
}

export const globalOptions = (command: Command): GlobalOptions =>
  command.optsWithGlobals<GlobalOptions>();

/** The process's own, for the commands that take nothing else (factory.ts). */
const processIO = processFactory();

/** The output format from `--output`, checked before any request is sent. */
export const formatOf = (command: Command, f: Factory = processIO): OutputFormat =>
  outputFormat(globalOptions(command).output, f.io.stdout.isTTY === true);

export interface ClientOverrides {
  maxRetries?: number;
  /** Hears of every request the client sends, its own retries included. */
  onRequest?: () => void;
}

/** An SDK client for the connection the flags, the environment or the saved login give. */
export function clientOf(
  command: Command,
  overrides: ClientOverrides = {},
  f: Factory = processIO,
): ErpClient {
  return clientFor(f, globalOptions(command), overrides);
}

/** An SDK client for these global flags, sending with the factory's fetch. */
export function clientFor(
  f: Factory,
  flags: GlobalOptions,
  { onRequest, ...rest }: ClientOverrides = {},
): ErpClient {
  const { baseUrl, token } = resolveConnection(flags, f.env);
  const send = flags.verbose ? verboseFetch(f.fetch, f.io.stderr) : f.fetch;
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
function verboseFetch(send: FetchLike, err: Output): FetchLike {
  return async (url, init) => {
    const started = performance.now();
    const key = (init.headers as Record<string, string> | undefined)?.["idempotency-key"];
    const keyed = key === undefined ? "" : ` (Idempotency-Key ${key})`;
    err.write(`> ${init.method ?? "GET"} ${url}${keyed}\n`);
    const response = await send(url, init);
    const elapsed = Math.round(performance.now() - started);
    const requestId = response.headers.get("x-request-id");
    const tagged = requestId ? ` (X-Request-Id ${requestId})` : "";
    err.write(`< ${response.status} ${response.statusText} in ${elapsed} ms${tagged}\n`);
    return response;
  };
}
