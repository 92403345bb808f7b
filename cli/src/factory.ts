// What a command takes from outside the process's code (cli/cli's Factory): its streams, its
// environment, the fetch its SDK client sends with, Ctrl-C, and how the process ends. The CLI runs
// with the process's own (processFactory); a command's unit tests give it captured streams, a fake
// API and a Ctrl-C they press themselves (fake-factory.ts), without a server or a child process.
import { writeSync } from "node:fs";
import type { Readable } from "node:stream";
import type { FetchLike } from "@erp/sdk";

/** Where a command writes: stdout or stderr. */
export interface Output {
  write(chunk: string | Uint8Array): boolean;
  once(event: "drain", listener: () => void): unknown;
  readonly isTTY?: boolean;
}

/** Where a command reads typed or piped input. */
export type Input = Readable & { readonly isTTY?: boolean };

export interface IOStreams {
  stdin: Input;
  stdout: Output;
  stderr: Output;
}

export interface Factory {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  /** The fetch every SDK client of the CLI sends with. */
  fetch: FetchLike;
  /** Calls `handler` on each Ctrl-C (SIGINT), for as long as the process lives. */
  onInterrupt(handler: () => void): void;
  /** Ends the process at once with `code` (a second Ctrl-C), `lastWords` written to stderr first. */
  exitNow(code: number, lastWords: string): void;
  /** The exit code the command ended with (commands that finish without an error may set another). */
  exitCode: number;
}

export function processFactory(): Factory {
  return {
    io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    env: process.env,
    fetch: (url, init) => fetch(url, init),
    onInterrupt: (handler) => void process.on("SIGINT", handler),
    exitNow(code, lastWords) {
      // Written at once: process.exit does not wait for a pipe to take buffered output.
      writeSync(2, lastWords);
      process.exit(code);
    },
    exitCode: 0,
  };
}

/** Writes to `out` and waits when its buffer is full, so a long output does not pile up in memory. */
export function writeTo(out: Output, text: string | Uint8Array): Promise<void> {
  if (out.write(text)) return Promise.resolve();
  return new Promise((resolve) => void out.once("drain", () => resolve()));
}
