// A request admitted against its company's rate limit and then refused gives its unit back
// (docs/limits.md: refused requests and replays do not count, though a company's refused requests
// are given back only up to its rate a minute). Admission, a layer above, leaves here how to give
// it back; the error handler calls it before it answers, and a replay's route does, so the
// answer's RateLimit-Remaining already shows the unit given back. Only requests of a limited plan
// leave anything.

/** Why a request gives its unit back. */
export type GiveBackReason = "refused" | "replayed";

const giveBacks = new WeakMap<Request, (reason: GiveBackReason) => void>();

/** How the admitted `request` gives its unit back, should it be refused or replayed. */
export function onGiveBack(request: Request, giveBack: (reason: GiveBackReason) => void): void {
  giveBacks.set(request, giveBack);
}

/** The request was refused or replayed: its unit goes back to the limit, once. */
export function giveBack(request: Request, reason: GiveBackReason): void {
  const back = giveBacks.get(request);
  if (back === undefined) return;
  giveBacks.delete(request);
  back(reason);
}
