// What the interrupted-import tests share: servers they may kill (all killed at the end), a random
// moment to interrupt at, and a wait for that moment that fails if the import ended before it.
import type { RunningCli } from "./cli.ts";
import { type RunningServer, startServer } from "./server.ts";

/** Servers started on demand (on a given port to restart one) and killed together at the end. */
export function killableServers(): {
  start: (port?: number) => Promise<RunningServer>;
  killAll: () => Promise<void>;
} {
  const servers: RunningServer[] = [];
  return {
    start: async (port) => {
      const started = await startServer({ port });
      servers.push(started);
      return started;
    },
    killAll: async () => {
      await Promise.all(servers.map((server) => server.stop("SIGKILL")));
    },
  };
}

/** A whole number from `low` to `high`, both included. */
export const between = (low: number, high: number): number =>
  low + Math.floor(Math.random() * (high - low + 1));

/** Waits until `done` says so; the import must not end first (it would not have been interrupted). */
export async function untilBefore(
  what: string,
  cli: RunningCli,
  done: () => boolean | Promise<boolean>,
): Promise<void> {
  while (!(await done())) {
    if (cli.process.exitCode !== null || cli.process.signalCode !== null)
      throw new Error(`the import ended before ${what}`);
    await Bun.sleep(5);
  }
}
