// What Ctrl-C does to an import: the first stops it after the batches in flight (the summary is
// printed, exit 130), a second quits at once; a script runner's echo of the same keystroke is no
// second Ctrl-C, and once the import has ended a Ctrl-C leaves its summary and exit code alone.

export class CtrlC {
  #first: number | undefined;
  #ended = false;
  /** Whether a Ctrl-C stopped the import before it ended. */
  interrupted = false;

  constructor(
    /** A second SIGINT within this many milliseconds of the first is the same keystroke. */
    private readonly sameKeystrokeMs: number,
    private readonly on: { first(): void; second(): void },
  ) {}

  /** A SIGINT at `now` (milliseconds). */
  press(now: number): void {
    if (this.#first !== undefined) {
      if (now - this.#first >= this.sameKeystrokeMs) this.on.second();
      return;
    }
    this.#first = now;
    if (this.#ended) return;
    this.interrupted = true;
    this.on.first();
  }

  /** The import has ended: its summary and exit code stand. */
  end(): void {
    this.#ended = true;
  }
}
