// Waits that must end by a deadline (a connection from the pool, a statement's answer), checked
// together by one timer per process instead of a timer each: a hot read waits twice, and arming
// and clearing a timer per wait cost it a measurable share of its CPU (bench/README.md). A wait
// ends at most TICK_MS after its deadline, far inside the slack a request's budget leaves.
const TICK_MS = 50;

/** A wait being watched: `expire` runs once if it is still watched at `at` (epoch ms). */
export interface Watch {
  readonly at: number;
  readonly expire: () => void;
}

const watches = new Set<Watch>();
let timer: ReturnType<typeof setInterval> | undefined;

function tick(): void {
  const now = Date.now();
  for (const watch of watches) {
    if (watch.at > now) continue;
    watches.delete(watch);
    watch.expire();
  }
  if (watches.size === 0) {
    clearInterval(timer);
    timer = undefined;
  }
}

export function watch(at: number, expire: () => void): Watch {
  const watched = { at, expire };
  watches.add(watched);
  if (!timer) {
    timer = setInterval(tick, TICK_MS);
    timer.unref?.();
  }
  return watched;
}

/** The wait ended in time: its `expire` never runs. */
export function unwatch(watched: Watch): void {
  watches.delete(watched);
}

/**
 * `pending`'s outcome if it comes by `at`; otherwise the error `expired` returns, which may also
 * let go of what `pending` waits on. A late outcome of `pending` is dropped.
 */
export function settleBy<T>(pending: Promise<T>, at: number, expired: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const watched = watch(at, () => reject(expired()));
    pending.then(
      (value) => {
        unwatch(watched);
        resolve(value);
      },
      (error: unknown) => {
        unwatch(watched);
        reject(error);
      },
    );
  });
}
