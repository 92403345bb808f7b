// Deno, for the tests that run the SDK on it. `bun run test` (scripts/test.ts) installs it from npm
// when it is missing; where that failed, those tests are skipped and the run says so once.
export const DENO: string | undefined = Bun.which("deno") ?? undefined;

if (!DENO)
  console.warn(
    "\n!!! deno is not installed (scripts/test.ts installs it with `npm i -g deno`; that failed): " +
      "the SDK's Deno tests are SKIPPED !!!\n",
  );
