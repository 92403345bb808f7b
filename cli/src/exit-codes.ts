// The process exit codes of `erp`, named once (docs/cli.md); scripts branch on these numbers.
export const EXIT = {
  /** Everything worked. */
  OK: 0,
  /** The API refused the request, or it could not be reached. */
  API_ERROR: 1,
  /** The command line was wrong: unknown command or flag, bad value, missing connection settings. */
  USAGE: 2,
  /** `erp import` finished, but the API rejected some rows (see the summary and --report). */
  IMPORT_REJECTED: 3,
  /** Interrupted with Ctrl-C (128 + SIGINT), after in-flight requests settled. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
