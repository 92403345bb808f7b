// What every action needs from the global flags: an SDK client for the resolved connection, and the output format.
import type { Command } from "commander";
import { ErpClient } from "../../sdk/mod.ts";
import { type ConnectionFlags, resolveConnection } from "./config.ts";
import { type OutputFormat, outputFormat } from "./output.ts";

export interface GlobalOptions extends ConnectionFlags {
  output?: string | undefined;
}

export const globalOptions = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();

/** The output format from `--output`, checked before any request is sent. */
export const formatOf = (command: Command): OutputFormat => outputFormat(globalOptions(command).output);

/** An SDK client for the connection the flags, the environment or the saved login give. */
export function clientOf(command: Command, overrides: { maxRetries?: number } = {}): ErpClient {
  const connection = resolveConnection(globalOptions(command));
  return new ErpClient({ ...connection, ...overrides, headers: { "user-agent": "erp-cli" } });
}
