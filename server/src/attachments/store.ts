// Where attachments' bytes live (docs/attachments.md): a directory by default, or any S3-compatible
// store that several servers share. A store only keeps bytes under keys; which keys exist for whom
// is the attachments table's to say.

/** One upload in progress: its bytes go to the store as they arrive, kept only once finished. */
export interface Upload {
  /** Stores the next bytes; resolves when the store can take more (back-pressure). */
  write(chunk: Uint8Array): Promise<void>;
  /** Keeps the object whole under its key. */
  finish(): Promise<void>;
  /** Drops whatever was stored of it (an upload refused or broken off); never throws. */
  abort(): Promise<void>;
}

/** The inclusive byte range of a ranged read. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface AttachmentStore {
  /** Where it keeps the bytes, for the start's log line (no secret). */
  readonly location: string;
  /** True for a directory of this machine: other servers do not see it. */
  readonly local: boolean;
  begin(key: string, contentType: string): Upload;
  /** The object's bytes, or a range of them, as a body a Response can send. */
  read(key: string, range?: ByteRange): Blob | ReadableStream<Uint8Array>;
  /** Removes the object and whatever an upload of it left (a crash); a missing one is no error. */
  remove(key: string): Promise<void>;
}
