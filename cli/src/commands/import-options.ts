// What `erp import` runs with: its flags as commander parses them (import.ts), and what the run
// (import-run.ts) takes from outside: streams, the API client, Ctrl-C.
import type { ErpClient } from "@erp/sdk";
import type { ResolvedConnection } from "../config.ts";
import type { ClientOverrides } from "../context.ts";
import type { IOStreams } from "../factory.ts";
import type { Delimiter } from "../import/csv-parser.ts";
import type { ImportFormat } from "../import/rows.ts";
import type { DateFormat } from "../import/values.ts";
import type { OutputFormat } from "../output.ts";

/** The flags as commander parses them. */
export interface ImportFlags {
  format?: ImportFormat;
  sheet?: string;
  delimiter?: Delimiter;
  dryRun?: boolean;
  upsert?: boolean;
  update?: boolean;
  ifUnmodified?: boolean;
  concurrency: number;
  batchSize: number;
  dateFormat?: DateFormat;
  decimalComma?: boolean;
  skipRepeated?: boolean;
  report?: string;
  rejects?: string;
  map: string[];
  skipColumn: string[];
  skipUnknownColumns?: boolean;
  /** The reference columns whose missing names are created (--create-missing trade,category). */
  createMissing?: string[];
}

/** Everything an import runs with: the flags, and what it takes from outside. */
export interface ImportOptions extends ImportFlags {
  resource: string;
  file: string;
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  output: OutputFormat;
  connection: ResolvedConnection;
  /** An SDK client for the connection. */
  client(overrides: ClientOverrides): ErpClient;
  onInterrupt(handler: () => void): void;
  exitNow(code: number, lastWords: string): void;
  /**
   * A script runner (`bun run erp`, `npm run`) passes the terminal's Ctrl-C on to the CLI, which the
   * terminal signalled too (it signals the whole process group): one keystroke then arrives twice,
   * within this many milliseconds, and must not read as the second Ctrl-C that quits at once.
   */
  sameKeystrokeMs: number;
}
