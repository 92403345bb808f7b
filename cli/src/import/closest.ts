// Which of a few known names a mistyped one meant: a header that matches no field, a trade named
// "Electrcal". A name a few typos away is suggested; one that shares a few letters by chance is not.

/** The edit distance between two names (insertions, deletions and substitutions). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Whether `candidate` is close enough to `name` to be what was meant. */
export const isClose = (name: string, candidate: string): boolean =>
  editDistance(name, candidate) <= Math.max(2, Math.floor(name.length / 3));

/**
 * Up to `most` candidates close to `name`, the closest first (ties in the candidates' order);
 * both sides compared as `fold` makes them.
 */
export function closestNames(
  name: string,
  candidates: Iterable<string>,
  most = 3,
  fold: (text: string) => string = (text) => text,
): string[] {
  const folded = fold(name);
  const near: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const other = fold(candidate);
    if (!isClose(folded, other)) continue;
    near.push({ candidate, distance: editDistance(folded, other) });
  }
  return near
    .sort((a, b) => a.distance - b.distance)
    .slice(0, most)
    .map((one) => one.candidate);
}
