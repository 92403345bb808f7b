// Rate windows are whole UTC minutes (server/src/auth/rate-limit.ts): a test that counts admissions
// must not straddle two of them, or the second window admits its own allowance.

/** Waits for the next window when less than `needMs` of the current one is left. */
export async function freshRateWindow(needMs = 15_000): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - needMs) await Bun.sleep(60_000 - into + 50);
}
