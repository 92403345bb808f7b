// Waits that must end by a deadline (a connection from the pool, a statement's answer), checked
// together by one timer per process instead of a timer each: a hot read waits twice, and arming
// and clearing a timer per wait cost it a measurable share of its CPU (bench/README.md). A wait
// ends at most TICK_MS after its deadline, far inside the slack a request's budget leaves.
//
// The waits live in slots of an array that are used again, not in a Set: tens of thousands of
// adds and deletes a second left a Set holding about 30 MB more of the server's memory.
const TICK_MS = 50;

/** A watched wait, in its slot until it ends or expires. */
export interface Watch {
  readonly at: number;
  readonly expire: () => void;
  readonly slot: number;
}

const slots: (Watch | undefined)[] = [];
const freeSlots: number[] = [];
let watched = 0;
let timer: ReturnType<typeof setInterval> | undefined;

function tick(): void {
  const now = Date.now();
  for (let slot = 0; slot < slots.length; slot++) {
    const wait = slots[slot];
    if (wait === undefined || wait.at > now) continue;
    unwatch(wait);
    wait.expire();
  }
  if (watched === 0) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** Runs `expire` once at `at` (epoch ms) unless the wait is unwatched first. */
export function watch(at: number, expire: () => void): Watch {
  const slot = freeSlots.pop() ?? slots.length;
  const wait = { at, expire, slot };
  slots[slot] = wait;
  watched += 1;
  if (!timer) {
    timer = setInterval(tick, TICK_MS);
    timer.unref?.();
  }
  return wait;
}

/** The wait ended in time: its `expire` never runs. A wait that expired already holds no slot. */
export function unwatch(wait: Watch): void {
  if (slots[wait.slot] !== wait) return;
  slots[wait.slot] = undefined;
  freeSlots.push(wait.slot);
  watched -= 1;
}

/**
 * `pending`'s outcome if it comes by `at`; otherwise the error `expired` returns, which may also
 * let go of what `pending` waits on. A late outcome of `pending` is dropped.
 */
export function settleBy<T>(pending: Promise<T>, at: number, expired: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const wait = watch(at, () => reject(expired()));
    pending.then(
      (value) => {
        unwatch(wait);
        resolve(value);
      },
      (error: unknown) => {
        unwatch(wait);
        reject(error);
      },
    );
  });
}
