// Per-call options every method accepts, and the extra ones writes and conditional writes take.

/** Options for any call. */
export interface RequestOptions {
  /** Aborts the call, including any wait between retries. */
  signal?: AbortSignal;
  /** Per attempt; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** Options for create, update and delete. */
export interface WriteOptions extends RequestOptions {
  /** Validate and report what would happen; nothing is written (`X-Dry-Run: 1`). */
  dryRun?: boolean;
  /** Reuse a key to make a repeated call a replay; generated when omitted. Retries always reuse it. */
  idempotencyKey?: string;
}

/** Options for update and delete, which can be made conditional on the record being unchanged. */
export interface ConditionalWriteOptions extends WriteOptions {
  /** The ETag of the record as last read; a changed record fails with PreconditionFailedError (412). */
  ifMatch?: string;
}
