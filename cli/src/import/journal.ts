// The import journal (the SDK's ImportJournal, in a file): the item keys of rows that went through,
// per API, company token and resource, so a re-run does not even send them. Kept under
// $XDG_STATE_HOME/erp/imports/ (default ~/.local/state). A row's key covers its content, so an
// edited row is sent again. It only saves work: a row the journal does not know (lost, deleted, or
// never written because the CLI died) carries the same key again, and the server writes it at most
// once.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ImportJournal } from "@erp/sdk";

export class Journal implements ImportJournal {
  readonly #done = new Set<string>();

  constructor(readonly file: string) {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, "utf8").split("\n")) if (line) this.#done.add(line);
  }

  /** The journal of one resource on one API for one token. */
  static for(
    baseUrl: string,
    token: string,
    resource: string,
    env: NodeJS.ProcessEnv = process.env,
  ): Journal {
    const state = env.XDG_STATE_HOME || path.join(homedir(), ".local", "state");
    const name = createHash("sha256")
      .update(JSON.stringify([baseUrl, createHash("sha256").update(token).digest("hex"), resource]))
      .digest("hex")
      .slice(0, 32);
    const dir = path.join(state, "erp", "imports");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new Journal(path.join(dir, `${resource}-${name}.journal`));
  }

  has(key: string): boolean {
    return this.#done.has(key);
  }

  /**
   * Records rows as done; written before the next batch is sent. Only in the file: a run asks about
   * a key once (the second of two identical rows has a key of its own), so what it asks about is
   * what the runs before it wrote, and keeping its own keys would cost memory for every row.
   */
  add(keys: readonly string[]): void {
    if (keys.length === 0) return;
    appendFileSync(this.file, `${keys.join("\n")}\n`, { mode: 0o600 });
  }
}
