// Where the CLI finds its API connection: flags, then ERP_BASE_URL/ERP_TOKEN, then the file `erp login` wrote.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UsageError } from "./usage-error.ts";

/** What every API command needs. */
export interface Connection {
  baseUrl: string;
  token: string;
}

/** The global flags that can carry a connection. */
export interface ConnectionFlags {
  baseUrl?: string | undefined;
  token?: string | undefined;
}

/** What `bun run start` serves when nothing says otherwise. */
export const DEFAULT_BASE_URL = "http://localhost:3000";

/** `$ERP_CONFIG`, else `$XDG_CONFIG_HOME/erp/config.json`, else `~/.config/erp/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ERP_CONFIG) return path.resolve(env.ERP_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "erp", "config.json");
}

/** The saved connection; empty when `erp login` has not run. */
export function readConfig(file: string = configPath()): Partial<Connection> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const saved = JSON.parse(text) as { base_url?: unknown; token?: unknown };
    return {
      ...(typeof saved.base_url === "string" ? { baseUrl: saved.base_url } : {}),
      ...(typeof saved.token === "string" ? { token: saved.token } : {}),
    };
  } catch {
    throw new UsageError(`${file} is not valid JSON: run \`erp login\` again`);
  }
}

/** Saves the connection readable by its owner only (0600, directory 0700), replacing the file atomically. */
export function writeConfig(connection: Connection, file: string = configPath()): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ base_url: connection.baseUrl, token: connection.token }, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFileSync is filtered by the umask; the token must never be group-readable.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** Each setting on its own: a flag wins over the environment, which wins over the saved file. */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Connection {
  const saved = flags.token && flags.baseUrl ? {} : readConfig(configPath(env));
  const baseUrl = flags.baseUrl || env.ERP_BASE_URL || saved.baseUrl || DEFAULT_BASE_URL;
  const token = flags.token || env.ERP_TOKEN || saved.token;
  if (!token) throw new UsageError("no API token: pass --token, set ERP_TOKEN, or run `erp login`");
  return { baseUrl: checkBaseUrl(baseUrl), token };
}

/** An http(s) URL without a trailing slash. */
export function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`base URL ${JSON.stringify(value)} is not a URL (e.g. https://erp.example.com)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`base URL must be http or https, not ${url.protocol}`);
  return value.replace(/\/+$/, "");
}
