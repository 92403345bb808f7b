// A mistake on the command line: reported on stderr and exits 2, before any request is sent.
export class UsageError extends Error {
  override readonly name = "UsageError";
}
